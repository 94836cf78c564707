#!/usr/bin/env bash
# Gate: no shipped file names an internal service, an endpoint of one, or a credential. Every
# endpoint toolgate talks to comes from the environment or the user's config: one written into a
# shipped file would carry one operator's infrastructure inside a stranger's binary or docs.
# Shipped: src/, skills/, docs/, scripts/, README.md, install.sh (tests are not shipped).
# Prints FILE:LINE: what, for each finding, and exits 1 when there is any.
set -euo pipefail
cd "$(git rev-parse --show-toplevel)"

# The output boundary's sample table holds fake keys and PEM markers on purpose: it is what the
# boundary's own rules are proven against.
allowed='^src/boundary/samples[a-z-]*\.ts$'

checks=(
  # A host in a zone that only exists inside an organisation, in a URL or an endpoint.
  'internal host|[a-z][a-z0-9+.-]*://[^/[:space:]"'"'"'`]*\.(internal|corp|intranet|lan|private|home\.arpa)([:/"'"'"'`[:space:]]|$)'
  # A private IPv4 address in a URL (loopback is fine: it is this machine).
  'private address|[a-z][a-z0-9+.-]*://(10\.[0-9]{1,3}|192\.168|172\.(1[6-9]|2[0-9]|3[01]))\.[0-9]{1,3}'
  # Credentials by their shape: AWS, GitHub, Slack, OpenAI-style keys, a URL with a password.
  'credential|AKIA[0-9A-Z]{16}|gh[pousr]_[A-Za-z0-9]{36}|github_pat_[A-Za-z0-9_]{22,}|xox[abprs]-[0-9A-Za-z-]{10,}|sk-[A-Za-z0-9]{32,}|[a-z][a-z0-9+.-]*://[A-Za-z0-9._%-]+:[^@/[:space:]]{3,}@[a-z0-9.-]+\.[a-z]{2,}'
  # A private key's marker.
  'private key|-----BEGIN ([A-Z]+ )?PRIVATE KEY-----'
)

found=0
while IFS= read -r -d '' file; do
  [[ "$file" =~ $allowed ]] && continue
  for check in "${checks[@]}"; do
    what="${check%%|*}"
    pattern="${check#*|}"
    while IFS= read -r hit; do
      [ -n "$hit" ] || continue
      echo "${file}:${hit%%:*}: ${what}"
      found=1
    done < <(grep -nEI -- "$pattern" "$file" || true)
  done
done < <(git ls-files -z -- src skills docs scripts README.md install.sh toolgate.json)

if [ "$found" -ne 0 ]; then
  echo "hygiene: a shipped file names an internal service, an endpoint of one, or a credential (above); take it from the environment or the config instead, or use an example domain (example.com, .test, .example)" >&2
  exit 1
fi
echo "hygiene: no internal service, endpoint or credential in a shipped file"
