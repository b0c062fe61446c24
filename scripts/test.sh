#!/usr/bin/env bash
# Runs every test llm-prober has. This is the README's test command and
# what CI runs. Needs Go and Node.js (>= 20.15); builds promtool from
# tools/go.mod and installs the pinned third-party mock from npm.
set -euo pipefail
cd "$(dirname "$0")/.."

step() { printf '\n== %s\n' "$*"; }

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

step "go vet"
go vet ./...
(cd dashboards && go vet ./...)
(cd bench && go vet ./...)
(cd tools && go vet ./alertmanager/)

step "golangci-lint (pinned in tools/lint/go.mod; config .golangci.yml)"
mkdir -p .cache/bin
(cd tools/lint && go build -o ../../.cache/bin/golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint)
.cache/bin/golangci-lint run ./...
(cd dashboards && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./...)
(cd bench && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./...)

step "build promtool and prometheus (tools/go.mod)"
mkdir -p .cache/bin
go build -modfile=tools/go.mod -o .cache/bin/promtool github.com/prometheus/prometheus/cmd/promtool
export PROMTOOL=$PWD/.cache/bin/promtool
go build -modfile=tools/go.mod -o .cache/bin/prometheus github.com/prometheus/prometheus/cmd/prometheus
export PROMETHEUS=$PWD/.cache/bin/prometheus
export LLM_PROBER_E2E=1 # the end-to-end tests that need Prometheus run too

step "third-party OpenAI-compatible mock for the fault tests (@copilotkit/aimock, pinned)"
npm ci --prefix prober/testdata/aimock --no-audit --no-fund --silent

step "static binary, as the Dockerfile builds it"
scripts/build.sh .cache/bin/llm-prober
.cache/bin/llm-prober --version
if ldd .cache/bin/llm-prober >/dev/null 2>&1; then echo "binary is not static"; exit 1; fi

step "rules: promtool check + unit tests (incl. series recorded by the alert drill)"
"$PROMTOOL" check rules alerts/llm-prober-rules.yml alerts/llm-prober-alerts.yml
"$PROMTOOL" test rules alerts/tests/*.yml

step "Alertmanager example: decoded and its inhibitions checked with Alertmanager's config package (tools/go.mod)"
(cd tools && go test -count=1 ./alertmanager/)
# The alert drill (scripts/alert-drill.sh, ~9 min even with --quick) is not run here;
# go vet above builds its driver (e2e/drill). See docs/alerting.md.

step "go test -race (all packages, incl. end-to-end with a real Prometheus)"
go test -race -count=1 -timeout 30m ./...
(cd dashboards && go test -race -count=1 ./...) # generated dashboards + rules; a rules variant through $PROMTOOL

step "fuzz the SSE reader, the stream parser, the config loader and the exposition writer (20 s each)"
go test -run='^$' -fuzz='^FuzzReadStream$' -fuzztime=20s ./prober/
go test -run='^$' -fuzz='^FuzzSSE$' -fuzztime=20s ./prober/
go test -run='^$' -fuzz='^FuzzLoad$' -fuzztime=20s ./config/
go test -run='^$' -fuzz='^FuzzWriterRoundTrip$' -fuzztime=20s ./internal/exposition/

step "benchmarks still run (one iteration each; scripts/bench.sh measures)"
go test -run='^$' -bench=. -benchtime=1x ./prober/ ./collector/ >/dev/null
(cd bench && go test -run='^$' -bench=. -benchtime=1x ./... >/dev/null)

step "timing accuracy without the race detector (its bounds are the real ones)"
go test -count=1 -run 'TestMeasurementAccuracy' -v ./prober/ | grep -E 'error over|^(---|ok|FAIL)'

step "deploy: kustomize builds decoded strictly with k8s.io/api and prometheus-operator types, PrometheusRule vs alerts/*.yml (deploy/go.mod)"
(cd deploy && go vet ./... && go test -race -count=1 ./...)
