#!/usr/bin/env bash
# Runs one go command in every module of the repository, e.g.
#   scripts/go-all.sh test ./...      scripts/go-all.sh vet ./...
# `go test ./...` at the root covers the product's module only: dashboards/,
# perf/, deploy/, tools/ and tools/lint/ are modules of their own, so that
# their heavy dependencies stay out of the product's go.mod. There is no
# go.work on purpose: a workspace would build the product with the highest
# version any module asks for, not with what its own go.mod pins.
set -euo pipefail
cd "$(dirname "$0")/.."
rc=0
for mod in $(git ls-files '*go.mod' ':!:**/testdata/**'); do
  dir=$(dirname "$mod")
  printf '== %s: go %s\n' "$dir" "$*"
  (cd "$dir" && go "$@") || rc=1
done
exit $rc
