#!/usr/bin/env bash
# Gate "format": Biome (exact-pinned in package.json, configured in biome.json) checks that the tree
# is formatted at a width of 120 and passes its lint rules. The 350-line cap of
# test/architecture.test.ts counts lines as the formatter writes them, so this gate keeps that
# count honest. dev_check runs it in a disposable copy of the working tree, which holds no
# node_modules (ignored by git): the main checkout's is linked in. To fix: bunx biome check --write .
set -euo pipefail
if [ ! -e node_modules ]; then
  main="$(dirname "$(git rev-parse --path-format=absolute --git-common-dir)")"
  ln -s "$main/node_modules" node_modules
fi
exec node_modules/.bin/biome ci --colors=off --max-diagnostics=50 .
