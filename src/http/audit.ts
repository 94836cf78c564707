// The audit view of a URL (journal, stderr, error messages): scheme, host and port only, no
// userinfo, path, query or fragment. Import-free, so the journal can use it without the policy.

export function auditView(url: string | URL): string {
  try {
    const u = typeof url === "string" ? new URL(url) : url;
    return `${u.protocol}//${u.host}`;
  } catch {
    return "(not a URL)";
  }
}
