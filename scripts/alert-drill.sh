#!/usr/bin/env bash
# Alert drill: five mock vLLM personalities (healthy, slow TTFT, saturated,
# killed, every probe timing out before its first token), llm-prober, and
# Prometheus 3 from tools/go.mod with the shipped rules unchanged. Prints an
# alert x personality table and exits non-zero when the healthy target
# alerts, an expected alert does not fire, an alert outlives the killed
# prober, or nothing fires at some poll after the prober's kill (the
# prober-death timeline). See docs/alerting.md.
#
#   scripts/alert-drill.sh            # full drill, ~31 minutes
#   scripts/alert-drill.sh --quick    # short windows only, ~10 minutes
#   scripts/alert-drill.sh --table t.md --record series.yml
#
# LLM_PROBER_BIN / PROMETHEUS_BIN use prebuilt binaries instead.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p .cache/bin

prober=${LLM_PROBER_BIN:-}
if [ -z "$prober" ]; then
  prober=.cache/bin/llm-prober-drill
  go build -o "$prober" ./cmd/llm-prober
fi
prom=${PROMETHEUS_BIN:-.cache/bin/prometheus}
if [ ! -x "$prom" ] || [ tools/go.mod -nt "$prom" ]; then
  echo "building Prometheus from tools/go.mod (minutes on a cold cache)"
  go build -modfile=tools/go.mod -o "$prom" github.com/prometheus/prometheus/cmd/prometheus
fi
go build -o .cache/bin/alert-drill ./e2e/drill
exec .cache/bin/alert-drill --prober "$prober" --prometheus "$prom" --rules alerts "$@"
