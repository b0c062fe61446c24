#!/usr/bin/env bash
# Builds the static llm-prober binary. The Dockerfile and CI both use this
# script, so the image ships exactly the binary the tests exercise.
# Usage: scripts/build.sh [OUTPUT]   (default ./llm-prober)
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-llm-prober}
pkg=github.com/prometheus/common/version
version=$(cat VERSION)
revision=${REVISION:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
branch=${BRANCH:-$(git rev-parse --abbrev-ref HEAD 2>/dev/null || echo unknown)}
CGO_ENABLED=0 go build -trimpath -o "$out" -ldflags "-s -w \
  -X $pkg.Version=$version -X $pkg.Revision=$revision -X $pkg.Branch=$branch \
  -X $pkg.BuildUser=${BUILD_USER:-llm-prober} -X $pkg.BuildDate=$(date -u +%Y%m%d-%H:%M:%S)" \
  ./cmd/llm-prober
