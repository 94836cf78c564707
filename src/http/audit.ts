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

/**
 * A URL as a refusal's message names it: the audit view for http and https; for any other scheme
 * only the scheme, in words. A `file:` URL (`file://` alone too) is a local path, which the output
 * boundary withholds from a result read with a remote source's rules (web_extract, the rails):
 * quoted in a message, it turned the refusal into sensitive_output_rejected.
 */
export function urlInWords(url: string | URL): string {
  try {
    const u = typeof url === "string" ? new URL(url) : url;
    if (u.protocol === "http:" || u.protocol === "https:") return `${u.protocol}//${u.host}`;
    return `a URL with the scheme ${JSON.stringify(u.protocol.slice(0, -1).slice(0, 20))}`;
  } catch {
    return "a URL that cannot be parsed";
  }
}
