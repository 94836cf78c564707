#!/usr/bin/env bash
# Gate "types": the TypeScript type check. dev_check runs it in a disposable copy of the working
# tree, which holds no node_modules (ignored by git): the main checkout's is linked in.
set -euo pipefail
if [ ! -e node_modules ]; then
  main="$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")"
  ln -s "$main/node_modules" node_modules
fi
exec node_modules/.bin/tsc --noEmit -p .
