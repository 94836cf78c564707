// Markdown files imported as text (`with { type: "text" }`), as Bun bundles them: the shipped
// skill cards in src/tools/skills/bundled.ts.
declare module "*.md" {
  const text: string;
  export default text;
}
