// Whether the environment says "this is CI, nobody is at a terminal": CI set to anything but
// empty, "false" or "0" (any case). GitHub/GitLab set "true", others "1" or a product name.
export function isCI(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = env.CI?.trim().toLowerCase();
  return v !== undefined && v !== "" && v !== "false" && v !== "0";
}
