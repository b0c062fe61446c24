#!/usr/bin/env bash
# Reproduces every figure in docs/performance.md. Results go to $OUT
# (default $TMPDIR/llm-prober-perf), one raw file per benchmark plus summary.txt.
#
#   scripts/perf.sh            # full run (~15 min; the scale run alone is ~8 min)
#   QUICK=1 scripts/perf.sh    # smoke run: count 2, short scale run
#
# Environment: COUNT (benchmark repetitions, default 6), ROUNDS (fidelity
# rounds per configuration, default 3), SCALE_TARGETS, SCALE_INTERVAL,
# SCALE_DURATION. The machine is measured as it is: note its load.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT=${OUT:-${TMPDIR:-/tmp}/llm-prober-perf}
COUNT=${COUNT:-6}
ROUNDS=${ROUNDS:-3}
SCALE_TARGETS=${SCALE_TARGETS:-100,1000,10000}
SCALE_INTERVAL=${SCALE_INTERVAL:-60s}
SCALE_DURATION=${SCALE_DURATION:-120s}
if [[ -n "${QUICK:-}" ]]; then
	COUNT=2 ROUNDS=1 SCALE_TARGETS=100,1000 SCALE_INTERVAL=10s SCALE_DURATION=20s
fi
mkdir -p "$OUT"
OUT=$(cd "$OUT" && pwd)
summary="$OUT/summary.txt"

{
	echo "# machine"
	echo "date: $(date -u +%FT%TZ)"
	echo "nproc: $(nproc)"
	echo "cpu: $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ //')"
	echo "memory: $(free -h | awk '/Mem:/ {print $2}')"
	echo "go: $(go version)"
	echo "load at start: $(cut -d' ' -f1-3 /proc/loadavg)"
} | tee "$summary"

# median of the values of one unit (e.g. ns/token) per benchmark name,
# with the spread (min, max) over the runs.
medians() { # file unit
	awk -v unit="$2" '/^Benchmark/ { for (i = 3; i < NF; i++) if ($(i+1) == unit) print $1, $i }' "$1" |
		sort -k1,1 -k2,2g |
		awk -v u="$2" 'function flush() { m = (n % 2) ? v[(n+1)/2] : (v[n/2] + v[n/2+1]) / 2
				printf "%s %.6g %s (min %g, max %g, n=%d)\n", k, m, u, v[1], v[n], n; n = 0 }
			{ if ($1 != k && k != "") flush(); k = $1; v[++n] = $2 }
			END { if (k != "") flush() }'
}
median_of() { # file benchname unit
	medians "$1" "$3" | awk -v b="$2" '$1 == b { print $2 }'
}

echo "== 1. CPU per streamed token (2,000-token vLLM chat stream) ==" | tee -a "$summary"
go test -run '^$' -bench 'ReadStream|SSEReader|ParseChunk' -benchmem -count "$COUNT" ./prober/ >"$OUT/prober.txt"
(cd perf && go test -run '^$' -bench Decode -benchmem -count "$COUNT" .) >"$OUT/decode.txt"
(cd perf && go tool benchstat "$OUT/prober.txt" "$OUT/decode.txt") | tee -a "$summary"
medians "$OUT/decode.txt" ns/token | tee -a "$summary"
ours=$(median_of "$OUT/decode.txt" BenchmarkDecode/llm-prober/run-2 ns/token)
for peer in openai-go/client openai-go/ssestream; do
	theirs=$(median_of "$OUT/decode.txt" "BenchmarkDecode/$peer-2" ns/token)
	awk -v a="$ours" -v b="$theirs" -v p="$peer" 'BEGIN { if (a > 0) printf "ratio %s / llm-prober: %.1fx (target >= 3x)\n", p, b / a }' | tee -a "$summary"
done

echo "== 4. Server-metrics re-export of a 1 MB exposition ==" | tee -a "$summary"
go test -run '^$' -bench ServerMetrics -benchmem -count "$COUNT" ./collector/ >"$OUT/collector.txt"
(cd perf && go tool benchstat "$OUT/collector.txt") | tee -a "$summary"
parse=$(median_of "$OUT/collector.txt" BenchmarkServerMetrics/expfmt-parse-2 ns/op)
for v in reexport reexport+passthrough; do
	re=$(median_of "$OUT/collector.txt" "BenchmarkServerMetrics/$v-2" ns/op)
	awk -v a="$re" -v b="$parse" -v v="$v" 'BEGIN { printf "ratio %s / expfmt parse: %.2fx (target <= 1.2x)\n", v, a / b }' | tee -a "$summary"
done

echo "== 2. Timing fidelity against the mock's true emission times ==" | tee -a "$summary"
(cd perf && go build -o "$OUT/fidelity" ./cmd/fidelity)
"$OUT/fidelity" -streams 1,100,500 -rounds "$ROUNDS" | tee "$OUT/fidelity-inprocess.txt" | tee -a "$summary"
"$OUT/fidelity" -streams 1,100,500 -rounds "$ROUNDS" -mode subprocess | tee "$OUT/fidelity-subprocess.txt" | tee -a "$summary"
"$OUT/fidelity" -streams 500 -rounds "$ROUNDS" -itl 50ms | tee "$OUT/fidelity-itl50.txt" | tee -a "$summary"

echo "== 3. Scale: rendering 10,000 targets' series, in process ==" | tee -a "$summary"
go test -run '^$' -bench WriteFamilies -benchmem -count "$COUNT" ./prober/ >"$OUT/render.txt"
(cd perf && go tool benchstat "$OUT/render.txt") | tee -a "$summary"

echo "== 3. Scale: targets at a ${SCALE_INTERVAL} interval, real binary ==" | tee -a "$summary"
go build -o "$OUT/llm-prober" ./cmd/llm-prober
(cd perf && go build -o "$OUT/scale" ./cmd/scale)
"$OUT/scale" -binary "$OUT/llm-prober" -targets "$SCALE_TARGETS" -interval "$SCALE_INTERVAL" -duration "$SCALE_DURATION" |
	tee "$OUT/scale.txt" | tee -a "$summary"

echo "== 5. bench shards: a shard's schedule walk, the merge of 1,000,000 requests ==" | tee -a "$summary"
go test -run '^$' -bench ShardSchedule -benchmem -count "$COUNT" ./loadtest/ >"$OUT/shard.txt"
go test -run '^$' -bench Merge1M -benchtime 1x -benchmem -count 3 ./loadtest/merge/ >"$OUT/merge.txt"
(cd perf && go tool benchstat "$OUT/shard.txt" "$OUT/merge.txt") | tee -a "$summary"

echo "load at end: $(cut -d' ' -f1-3 /proc/loadavg)" | tee -a "$summary"
