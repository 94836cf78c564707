#!/bin/sh
# Installs toolgate: picks the release binary for this OS, CPU and C library, downloads it with
# SHA256SUMS, checks the checksum and only then puts it in place. A mismatch installs nothing.
#
#   curl -fsSL BASE/install.sh | sh
#
# TOOLGATE_DOWNLOAD_BASE  where toolgate-<platform> and SHA256SUMS are (default: the project's latest release)
# TOOLGATE_INSTALL_DIR    where the binary goes (default: ~/.local/bin)
set -eu

BASE="${TOOLGATE_DOWNLOAD_BASE:-https://github.com/toolgate/toolgate/releases/latest/download}"
DIR="${TOOLGATE_INSTALL_DIR:-${HOME:?HOME is not set: set TOOLGATE_INSTALL_DIR}/.local/bin}"

fail() { printf 'toolgate install: %s\n' "$1" >&2; exit 1; }
say() { printf 'toolgate install: %s\n' "$1" >&2; }

case "$(uname -s)" in
  Linux) os=linux ;;
  Darwin) os=darwin ;;
  *) fail "no release for $(uname -s) here: on Windows download toolgate-windows-x64.exe from the release, or run npx toolgate" ;;
esac
case "$(uname -m)" in
  x86_64 | amd64) cpu=x64 ;;
  aarch64 | arm64) cpu=arm64 ;;
  *) fail "no release for the CPU $(uname -m): toolgate ships for x86-64 and arm64" ;;
esac
libc=""
if [ "$os" = linux ]; then
  # musl (Alpine): its loader is there, or ldd says so.
  if ls /lib/ld-musl-* >/dev/null 2>&1 || (ldd --version 2>&1 || true) | grep -qi musl; then libc=-musl; fi
fi
file="toolgate-$os-$cpu$libc"

if command -v curl >/dev/null 2>&1; then
  fetch() { curl -fsSL --proto '=https,http' -o "$2" "$1"; }
elif command -v wget >/dev/null 2>&1; then
  fetch() { wget -q -O "$2" "$1"; }
else
  fail "neither curl nor wget is installed: install one of them"
fi
if command -v sha256sum >/dev/null 2>&1; then
  sha() { sha256sum "$1" | cut -d' ' -f1; }
elif command -v shasum >/dev/null 2>&1; then
  sha() { shasum -a 256 "$1" | cut -d' ' -f1; }
else
  fail "neither sha256sum nor shasum is installed: the download cannot be checked"
fi

tmp="$(mktemp -d)"
trap 'rm -rf "$tmp"' EXIT INT TERM
say "downloading $file from $BASE"
fetch "$BASE/SHA256SUMS" "$tmp/SHA256SUMS" || fail "cannot download $BASE/SHA256SUMS"
want="$(awk -v f="$file" '$2 == f || $2 == "*" f { print $1 }' "$tmp/SHA256SUMS")"
[ -n "$want" ] || fail "SHA256SUMS at $BASE lists no $file: this platform has no build in that release"
fetch "$BASE/$file" "$tmp/$file" || fail "cannot download $BASE/$file"
got="$(sha "$tmp/$file")"
[ "$got" = "$want" ] || fail "checksum mismatch for $file (expected $want, got $got): nothing was installed"

mkdir -p "$DIR" || fail "cannot make $DIR: set TOOLGATE_INSTALL_DIR to a folder you can write"
# Copied beside the target, then renamed over it: an interrupted install leaves the old binary whole.
cp "$tmp/$file" "$DIR/.toolgate.$$" && chmod 755 "$DIR/.toolgate.$$" && mv -f "$DIR/.toolgate.$$" "$DIR/toolgate" ||
  { rm -f "$DIR/.toolgate.$$"; fail "cannot write $DIR/toolgate"; }
say "installed $DIR/toolgate ($("$DIR/toolgate" --version))"
case ":$PATH:" in
  *":$DIR:"*) ;;
  *) say "$DIR is not on your PATH: add it (export PATH=\"$DIR:\$PATH\")" ;;
esac
