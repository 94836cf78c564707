// Files imported as text (`with { type: "text" }`), as Bun bundles them into the binary: the
// shipped skill cards (Markdown, src/tools/skills/bundled.ts) and each built-in tool's description
// (NAME.txt beside the tool's module).
declare module "*.md" {
  const text: string;
  export default text;
}
declare module "*.txt" {
  const text: string;
  export default text;
}
