#!/usr/bin/env bash
# Runs every test llm-prober has. This is the README's test command and
# what CI runs. Needs Go and Node.js (>= 20.15); builds golangci-lint,
# promtool and Prometheus from their pinned modules (tools/) and installs
# the pinned third-party mock from npm. Each step prints how long it took.
set -euo pipefail
cd "$(dirname "$0")/.."

# One build configuration for everything but the race tests, the one the
# release binary is built with (scripts/build.sh): the dependencies (the
# Kubernetes client, Prometheus's discovery) are compiled once and shared by
# promtool, Prometheus, the binary, the benchmarks and the deploy tests.
export CGO_ENABLED=0 GOFLAGS="$(go env GOFLAGS) -trimpath"

started=$SECONDS
step() {
  [ -z "${stepname:-}" ] || printf '   (%ss)\n' $((SECONDS - last))
  stepname=$* last=$SECONDS
  printf '\n== %s\n' "$*"
}
trap 'rc=$?; printf "   (%ss)\n\nscripts/test.sh: %s after %ss\n" $((SECONDS - last)) \
  "$([ $rc = 0 ] && echo passed || echo "FAILED in: $stepname")" $((SECONDS - started))' EXIT

step "gofmt"
unformatted=$(gofmt -l $(git ls-files '*.go'))
if [ -n "$unformatted" ]; then echo "gofmt would change:"; echo "$unformatted"; exit 1; fi

step "golangci-lint, go vet's checks included (pinned in tools/lint/go.mod; config .golangci.yml)"
mkdir -p .cache/bin
(cd tools/lint && go build -o ../../.cache/bin/golangci-lint github.com/golangci/golangci-lint/v2/cmd/golangci-lint)
.cache/bin/golangci-lint run ./...
(cd dashboards && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./...)
(cd perf && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./...)
(cd deploy && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./...)
(cd deploy/kustomize-v5.0.1 && ../../.cache/bin/golangci-lint run --config ../../.golangci.yml ./...)
(cd tools && ../.cache/bin/golangci-lint run --config ../.golangci.yml ./alertmanager/)

step "build promtool and prometheus (tools/go.mod, the product's Prometheus version; no cloud discovery)"
# remove_all_sd leaves file and HTTP discovery, all the tests use, and
# skips compiling the cloud SDKs (AWS, Azure, GCE, ...).
go build -tags remove_all_sd -modfile=tools/go.mod -o .cache/bin/promtool github.com/prometheus/prometheus/cmd/promtool
export PROMTOOL=$PWD/.cache/bin/promtool
go build -tags remove_all_sd -modfile=tools/go.mod -o .cache/bin/prometheus github.com/prometheus/prometheus/cmd/prometheus
export PROMETHEUS=$PWD/.cache/bin/prometheus
export LLM_PROBER_E2E=1 # the end-to-end tests that need Prometheus run too

step "third-party OpenAI-compatible mock for the fault tests (@copilotkit/aimock, pinned)"
npm ci --prefix prober/testdata/aimock --no-audit --no-fund --silent

step "static binary, as the Dockerfile builds it"
scripts/build.sh .cache/bin/llm-prober
.cache/bin/llm-prober --version
if ldd .cache/bin/llm-prober >/dev/null 2>&1; then echo "binary is not static"; exit 1; fi

step "the binary builds for macOS too (bench's timerfd waker is Linux-only; elsewhere Go's timers)"
GOOS=darwin GOARCH=arm64 go build -o /dev/null ./cmd/llm-prober
GOOS=darwin GOARCH=arm64 go vet ./loadtest/

step "Alertmanager example: decoded and its inhibitions checked with Alertmanager's config package (tools/go.mod)"
(cd tools && go test -count=1 ./alertmanager/)
# The alert drill (scripts/alert-drill.sh, ~9 min even with --quick) is not run here;
# golangci-lint above type-checks its driver (e2e/drill). See docs/alerting.md.

step "go test -race (all packages, incl. end-to-end with a real Prometheus)"
CGO_ENABLED=1 go test -race -count=1 -timeout 30m ./...
(cd dashboards && go test -count=1 ./...) # generated dashboards + rules (no goroutines: no -race); a rules variant through $PROMTOOL

step "fuzz the SSE reader, the stream parser, the config loader, the knee file reader, the exposition writer, traces, workload files, Prometheus answers, shard files and configuration-sweep inputs (~20 s each)"
# Budgets in inputs, not seconds: a duration-based -fuzztime can fail with a
# bare "context deadline exceeded" and no crasher when the deadline races a
# worker (golang/go#75804, fixed in Go 1.27), which a loaded machine makes
# likely. -fuzzminimizetime bounds the time spent shrinking each new input.
fuzz() { go test -run='^$' -fuzz="^$1\$" -fuzztime="$2" -fuzzminimizetime=200x "$3"; }
fuzz FuzzReadStream 40000x ./prober/
fuzz FuzzSSE 60000x ./prober/stream/
fuzz FuzzLoad 50000x ./config/
fuzz FuzzKneeFile 50000x ./capacity/kneefile/
fuzz FuzzWriterRoundTrip 100000x ./internal/exposition/
fuzz FuzzTrace 30000x ./loadtest/workload/
fuzz FuzzWorkloadFile 60000x ./loadtest/workload/
fuzz FuzzShareGPT 40000x ./loadtest/workload/
fuzz FuzzPromAnswer 30000x ./capacity/promsource/
fuzz FuzzReadRecords 30000x ./loadtest/resultfile/
fuzz FuzzServerConfig 30000x ./loadtest/cfgsweep/
fuzz FuzzResumeResult 30000x ./loadtest/cfgsweep/

step "benchmarks still run (one iteration each; scripts/perf.sh measures)"
go test -run='^$' -bench=. -benchtime=1x ./prober/ ./collector/ >/dev/null
(cd perf && go test -run='^$' -bench=. -benchtime=1x ./... >/dev/null)

step "bench's statistics by simulation: coverage, false alarms, power (skipped under -race: no goroutines, 10x slower)"
go test -count=1 -run 'Simulated' ./loadtest/compare/

step "timing accuracy without the race detector (its bounds are the real ones)"
go test -count=1 -run 'TestMeasurementAccuracy' -v ./prober/ | grep -E 'error over|^(---|ok|FAIL)'

step "deploy: kustomize builds and the Helm chart (rendered and linted with Helm's packages) decoded strictly with k8s.io/api and prometheus-operator types, PrometheusRule vs alerts/*.yml (deploy/go.mod)"
(cd deploy && go test -count=1 ./...) # decoding only: no -race
(cd deploy/kustomize-v5.0.1 && go test -count=1 ./...) # the example builds with kubectl 1.27's kustomize
