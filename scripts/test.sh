#!/bin/sh
# The README's test command (`npm test`): on a machine with Node and npm, installs what the suite
# needs when it is missing (Bun, then Debian packages as root), or stops at once naming it; then
# installs the dependencies, builds dist/toolgate (the end-to-end tests run it) and runs the suite.
# Extra arguments go to `bun test` (a file or a name filter).
set -eu
cd "$(dirname "$0")/.."

BUN_VERSION=1.4.4

say() { printf '%s\n' "test: $*" >&2; }

if ! command -v bun >/dev/null 2>&1; then
  say "installing Bun $BUN_VERSION (npm install -g bun@$BUN_VERSION)"
  npm install -g "bun@$BUN_VERSION" >&2 || { say "Bun is missing and could not be installed: run npm install -g bun@$BUN_VERSION"; exit 1; }
fi

# Each program the suite runs, and the Debian package that brings it.
missing=""
add() { case " $missing " in *" $1 "*) ;; *) missing="$missing $1" ;; esac; }
need() { command -v "$1" >/dev/null 2>&1 || add "$2"; }
need_file() { [ -e "$1" ] || add "$2"; }
need script util-linux    # prompts driven through a pseudo-terminal
need setpriv util-linux   # runs as nobody, and the sandbox as a checkout's owner
need unshare util-linux   # network namespaces for the URL-policy tests
need bwrap bubblewrap     # the product and bench sandboxes
need rg ripgrep           # what file_search is compared against
need ip iproute2          # loopback up inside those namespaces
need openssl openssl      # the https test's self-signed certificate
need perl perl-base       # a raw session client inside the sandbox
need strace strace        # a cold call syncs nothing before its result
need git git              # gates, worktrees and delegation
need pgrep procps         # the guardian's process checks
need patch patch          # file_edit's diffs apply with patch(1)
need jq jq                # the documentation's examples read results with jq (test/docs)
need chromium chromium     # log --html's page, loaded headless
need zsh zsh              # the zsh completion script runs in zsh
need fish fish            # the fish completion script runs in fish
# The linux-arm64 binary runs under qemu's user-mode emulator with the arm64 C and C++ libraries.
need qemu-aarch64-static qemu-user-static
need_file /usr/aarch64-linux-gnu/lib/ld-linux-aarch64.so.1 libc6-arm64-cross
need_file /usr/aarch64-linux-gnu/lib/libstdc++.so.6 libstdc++6-arm64-cross

if [ -n "$missing" ]; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    say "installing:$missing"
    # shellcheck disable=SC2086
    { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq $missing; } >&2 ||
      { say "could not install:$missing (apt-get failed above)"; exit 1; }
  else
    say "the suite needs these Debian packages, which are missing:$missing"
    say "install them (as root: apt-get install -y$missing) and run npm test again"
    exit 1
  fi
fi

bun install --frozen-lockfile
bun run build
exec bun test --timeout 60000 "$@"
