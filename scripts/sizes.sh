#!/usr/bin/env bash
# Prints the figures the README and docs/deployment.md leave to it, which
# drift with every dependency bump: how many modules the product and all
# seven Go modules need, and the binary's size with and without the
# Kubernetes client. Builds two binaries (a few minutes from cold caches).
set -euo pipefail
cd "$(dirname "$0")/.."
export CGO_ENABLED=0 GOFLAGS="$(go env GOFLAGS) -trimpath"
# The module graph (go.mod files fetched) and the modules whose code is
# compiled (zips fetched), the main modules left out.
graph() { (cd "$1" && go list -m all | tail -n +2 | cut -d' ' -f1); }
built() {
  local pkgs=./...
  case $1 in
  tools) pkgs="./... github.com/prometheus/prometheus/cmd/promtool github.com/prometheus/prometheus/cmd/prometheus" ;;
  tools/lint) pkgs=github.com/golangci/golangci-lint/v2/cmd/golangci-lint ;;
  esac
  # shellcheck disable=SC2086 # pkgs is a list
  (cd "$1" && go list -deps -test -tags remove_all_sd -f '{{with .Module}}{{if not .Main}}{{.Path}}{{end}}{{end}}' $pkgs)
}
mods=". dashboards perf deploy deploy/kustomize-v5.0.1 tools tools/lint"
echo "product (go.mod): $(graph . | sort -u | wc -l) modules in the graph, $(built . | sort -u | wc -l) compiled"
echo "all seven Go modules: $(for m in $mods; do graph "$m"; done | sort -u | wc -l) in the graph, $(for m in $mods; do built "$m"; done | sort -u | wc -l) compiled"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
scripts/build.sh "$tmp/llm-prober" >/dev/null
go build -ldflags='-s -w' -tags nokubernetes -o "$tmp/llm-prober-nok8s" ./cmd/llm-prober
mb() { awk -v b="$(stat -c %s "$1")" 'BEGIN { printf "%.1f MB", b / 1e6 }'; }
echo "binary (scripts/build.sh): $(mb "$tmp/llm-prober")"
echo "binary with -tags nokubernetes: $(mb "$tmp/llm-prober-nok8s")"
