package bench

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"maps"
	"math"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/alecthomas/kingpin/v2"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest/shard"
	"github.com/llm-prober/llm-prober/loadtest/stats"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// benchCLIClock is benchCLI with the shard's clock estimate injected.
func benchCLIClock(t *testing.T, clk shard.Clock, args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse(append([]string{"bench"}, args...)); err != nil {
		t.Fatal(err)
	}
	b.Clock = func() shard.Clock { return clk }
	var out, log bytes.Buffer
	code, err := b.main(t.Context(), &out, &log)
	if err != nil {
		printError(&log, "error:", err)
	}
	return code, out.String(), log.String()
}

// mergeCLI parses args as `llm-prober bench merge` and runs it.
func mergeCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse(append([]string{"bench", "merge"}, args...)); err != nil {
		t.Fatal(err)
	}
	var out, log bytes.Buffer
	code, err := b.merge.Main(t.Context(), &out, &log)
	if err != nil {
		printError(&log, "error:", err)
	}
	return code, out.String(), log.String()
}

// promptServer serves the mock and keeps each chat request's messages
// by its X-Request-Id. Every 10th answer it starts stalls for 400 ms
// after its second token.
func promptServer(t *testing.T) (string, func() map[string]string) {
	o := mockvllm.DefaultOptions()
	o.TTFT, o.ITL = mockvllm.Dist{Mean: 5 * time.Millisecond}, mockvllm.Dist{Mean: 2 * time.Millisecond, Jitter: time.Millisecond}
	o.DecodeStall = mockvllm.DecodeStall{Every: 10, For: 400 * time.Millisecond, AfterTokens: 2}
	s := mockvllm.New(o)
	var mu sync.Mutex
	seen := map[string]string{}
	ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/chat/completions" {
			body, _ := io.ReadAll(r.Body)
			var req struct{ Messages json.RawMessage }
			_ = json.Unmarshal(body, &req)
			mu.Lock()
			seen[r.Header.Get("X-Request-Id")] = string(req.Messages)
			mu.Unlock()
			r.Body = io.NopCloser(bytes.NewReader(body))
		}
		s.ServeHTTP(w, r)
	}))
	t.Cleanup(func() { s.Close(); ts.Close() })
	return ts.URL, func() map[string]string {
		mu.Lock()
		defer mu.Unlock()
		return maps.Clone(seen)
	}
}

// fileRequests reads a result file's requests: planned time by index,
// and the measured successful TTFTs (ms), from the send and from the
// schedule.
func fileRequests(t *testing.T, path string) (planned map[int64]float64, ttfts, sched []float64, head map[string]any) {
	planned, ttfts, sched, _, head = fileRequestsGaps(t, path)
	return planned, ttfts, sched, head
}

// fileRequestsGaps is fileRequests with each measured successful
// request's worst gap (ms; those with gaps, as the report counts them).
func fileRequestsGaps(t *testing.T, path string) (planned map[int64]float64, ttfts, sched, maxITL []float64, head map[string]any) {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var f struct {
		Requests []struct {
			Index   int64     `json:"index"`
			Planned float64   `json:"planned_s"`
			Start   float64   `json:"start_s"`
			TTFT    float64   `json:"ttft"`
			Warmup  bool      `json:"warmup"`
			Success bool      `json:"success"`
			ITLs    []float64 `json:"itls"`
			MaxITL  float64   `json:"max_itl"`
		} `json:"requests"`
	}
	if err := json.Unmarshal(raw, &f); err != nil {
		t.Fatal(err)
	}
	_ = json.Unmarshal(raw, &head)
	planned = map[int64]float64{}
	for _, q := range f.Requests {
		planned[q.Index] = q.Planned
		if q.Success && !q.Warmup {
			ttfts = append(ttfts, q.TTFT*1e3)
			sched = append(sched, (q.TTFT+max(q.Start-q.Planned, 0))*1e3)
			if len(q.ITLs) > 0 {
				maxITL = append(maxITL, q.MaxITL*1e3)
			}
		}
	}
	return planned, ttfts, sched, maxITL, head
}

// fileOrder is a result file's requests as listed: index and end (s).
func fileOrder(t *testing.T, path string) (idx []int64, end []float64) {
	t.Helper()
	var f struct {
		Requests []struct {
			Index int64   `json:"index"`
			End   float64 `json:"end_s"`
		} `json:"requests"`
	}
	readJSON(t, path, &f)
	for _, q := range f.Requests {
		idx, end = append(idx, q.Index), append(end, q.End)
	}
	return idx, end
}

// checkMergedOrder checks that the merged file lists the requests as one
// process does: in completion order, each shard's own order kept and
// the shards interleaved by when each request ended (ties: the lower
// shard), not shard after shard.
func checkMergedOrder(t *testing.T, merged string, shards []string) {
	t.Helper()
	type seq struct {
		idx []int64
		end []float64
	}
	var ss []seq
	for _, f := range shards {
		idx, end := fileOrder(t, f)
		ss = append(ss, seq{idx, end})
	}
	var want []int64
	for {
		best := -1
		for s, q := range ss {
			if len(q.idx) > 0 && (best < 0 || q.end[0] < ss[best].end[0]) {
				best = s
			}
		}
		if best < 0 {
			break
		}
		want = append(want, ss[best].idx[0])
		ss[best].idx, ss[best].end = ss[best].idx[1:], ss[best].end[1:]
	}
	got, end := fileOrder(t, merged)
	if !slices.Equal(got, want) {
		t.Errorf("merged file's requests by index:\n%v\nwant completion order across shards:\n%v", got, want)
	}
	for i := 1; i < len(end); i++ {
		if end[i] < end[i-1] && int(got[i])%len(shards) != int(got[i-1])%len(shards) {
			t.Errorf("merged file: request %d (end %.6f s) listed after request %d of another shard (end %.6f s)", got[i], end[i], got[i-1], end[i-1])
			break
		}
	}
}

var syncedClock = shard.Clock{Source: "injected", Offset: 200_000, MaxError: 300_000}

// runShards runs n shards of one run at once (as an Indexed Job's pods
// would, here in one process) against url; the files, by index.
func runShards(t *testing.T, url string, n int, clock func(i int) shard.Clock, args ...string) []string {
	t.Helper()
	dir := t.TempDir()
	start := time.Now().Add(3 * time.Second).UTC().Format(time.RFC3339Nano)
	files := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		files[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.json", i))
		wg.Go(func() {
			a := append(slices.Clone(args), "--shard", fmt.Sprintf("%d/%d", i, n), "--start-at", start, "--output-json", files[i])
			if code, stdout, log := benchCLIClock(t, clock(i), a...); code != 0 {
				t.Errorf("shard %d: exit %d\n%s\n%s", i, code, stdout, log)
			}
		})
	}
	wg.Wait()
	if t.Failed() {
		t.FailNow()
	}
	return files
}

var shardRunArgs = []string{"--seed", "7", "--request-rate", "300", "--burstiness", "0.3", "--num-prompts", "90", "--warmup", "3",
	"--input-tokens", "16", "--output-tokens", "4", "--progress", "off", "--metrics-interval", "50ms", "--goodput", "ttft:2000 max_itl:250"}

// Three shards partition one run: their union sends exactly the single
// process's requests (same indexes, planned send times and prompts),
// and the merge's percentiles are the exact ones of the union's raw
// requests, as one process computes them: the worst gaps too (every
// 10th answer stalls 400 ms, past max_itl:250), so the merged SLO
// attainment is the single run's.
func TestShardsUnionIsTheSingleRun(t *testing.T) {
	urlOne, promptsOne := promptServer(t)
	single := filepath.Join(t.TempDir(), "single.json")
	code, stdout, log := benchCLI(t, append(slices.Clone(shardRunArgs), "--url", urlOne, "--output-json", single)...)
	if code != 0 {
		t.Fatalf("single run: exit %d\n%s\n%s", code, stdout, log)
	}
	urlN, promptsN := promptServer(t)
	files := runShards(t, urlN, 3, func(int) shard.Clock { return syncedClock }, append(slices.Clone(shardRunArgs), "--url", urlN)...)

	wantPlanned, _, _, singleGaps, singleHead := fileRequestsGaps(t, single)
	union := map[int64]float64{}
	var unionTTFT, unionGaps []float64
	for i, f := range files {
		planned, ttfts, _, gaps, head := fileRequestsGaps(t, f)
		unionGaps = append(unionGaps, gaps...)
		for k, p := range planned {
			if int(k)%3 != i {
				t.Errorf("shard %d sent request %d", i, k)
			}
			union[k] = p
		}
		unionTTFT = append(unionTTFT, ttfts...)
		if srv, _ := head["llm_prober_server"].(map[string]any); (i == 0) != (srv["scrapes"].(float64) > 0) {
			t.Errorf("shard %d: server scrapes %v: only shard 0 scrapes", i, srv["scrapes"])
		}
	}
	if len(union) != len(wantPlanned) {
		t.Fatalf("union holds %d requests, the single run %d", len(union), len(wantPlanned))
	}
	for k, p := range wantPlanned {
		if math.Abs(union[k]-p) > 1e-9 {
			t.Errorf("request %d planned at %.9f s in the union, %.9f s alone", k, union[k], p)
		}
	}
	one, many := promptsOne(), promptsN()
	if len(one) != 93 || len(many) != 93 {
		t.Fatalf("prompts sent: %d alone, %d by the shards (want 93)", len(one), len(many))
	}
	for id, p := range one {
		if many[id] != p {
			t.Errorf("%s: the shards sent another prompt", id)
		}
	}

	merged := filepath.Join(t.TempDir(), "merged.json")
	csvPath, htmlPath := filepath.Join(t.TempDir(), "merged.csv"), filepath.Join(t.TempDir(), "merged.html")
	code, stdout, log = mergeCLI(t, append(slices.Clone(files), "--output-json", merged, "--output-csv", csvPath, "--report", htmlPath)...)
	if code != 0 {
		t.Fatalf("merge: exit %d\n%s\n%s", code, stdout, log)
	}
	for _, want := range []string{"merged 3 shards", "shard 2/3", "offset 200µs ± 300µs (injected)", "Successful requests:                     90"} {
		if !strings.Contains(stdout+log, want) {
			t.Errorf("merge output lacks %q:\n%s\n%s", want, stdout, log)
		}
	}
	if b, err := os.ReadFile(csvPath); err != nil || strings.Count(string(b), "\n") != 1+93 {
		t.Errorf("--output-csv: %v, %d lines, want a header and 93 rows", err, strings.Count(string(b), "\n"))
	}
	if b, err := os.ReadFile(htmlPath); err != nil || !strings.Contains(string(b), "(3 shards)") {
		t.Errorf("--report: %v", err)
	}
	_, mergedTTFT, _, head := fileRequests(t, merged)
	if len(mergedTTFT) != 90 {
		t.Fatalf("merged file: %d measured TTFTs", len(mergedTTFT))
	}
	checkMergedOrder(t, merged, files)
	slices.Sort(unionTTFT)
	for _, p := range []float64{50, 90, 99} {
		want := stats.QuantileSorted(unionTTFT, p)
		key := fmt.Sprintf("p%g_ttft_ms", p)
		if got := head[key].(float64); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: merged %.9g, the union's exact percentile %.9g", key, got, want)
		}
	}
	if head["completed"].(float64) != 90 {
		t.Errorf("completed %v", head["completed"])
	}
	slices.Sort(unionGaps)
	for _, p := range []float64{50, 90, 99} {
		want := stats.QuantileSorted(unionGaps, p)
		key := fmt.Sprintf("llm_prober_p%g_max_itl_ms", p)
		if got, _ := head[key].(float64); math.Abs(got-want) > 1e-9*want {
			t.Errorf("%s: merged %.9g, the union's exact percentile %.9g", key, got, want)
		}
	}
	stalled := func(gaps []float64) (n int) {
		for _, g := range gaps {
			if g > 250 {
				n++
			}
		}
		return n
	}
	// The mock stalls every 10th answer it serves: 9 of the 90 measured
	// (the 3 warm-ups come first) in either run.
	if n, m := stalled(unionGaps), stalled(singleGaps); n != 9 || m != 9 || len(unionGaps) != 90 {
		t.Errorf("stalled requests: %d in the union, %d alone (of %d, %d), want 9", n, m, len(unionGaps), len(singleGaps))
	}
	if got, want := head["llm_prober_goodput_percent"], singleHead["llm_prober_goodput_percent"]; got != want || got != 90.0 {
		t.Errorf("SLO attainment: merged %v, single %v, want 90 (the stalled requests miss max_itl)", got, want)
	}
}

// The merge refuses what is not one whole run: a clock off beyond
// --max-clock-offset (reported by shard and offset; merged but marked
// not comparable with 0), a missing shard (exit 4 naming it), the same
// shard twice, a shard of another run, a file that is no shard's.
func TestMergeRefuses(t *testing.T) {
	url := mocktarget.URL(t)
	skewed := shard.Clock{Source: "injected", Offset: 80_000_000, MaxError: 1_000_000}
	files := runShards(t, url, 3, func(i int) shard.Clock {
		if i == 1 {
			return skewed
		}
		return syncedClock
	}, "--url", url, "--seed", "5", "--request-rate", "400", "--num-prompts", "12", "--input-tokens", "8",
		"--output-tokens", "2", "--progress", "off", "--no-server-metrics")

	code, _, log := mergeCLI(t, files...)
	if code != ExitFailed || !strings.Contains(log, "shard 1 (") || !strings.Contains(log, "offset 80ms ± 1ms") ||
		!strings.Contains(log, "--max-clock-offset 50ms") {
		t.Errorf("skewed clock: exit %d, want %d naming shard 1 and its offset:\n%s", code, ExitFailed, log)
	}
	code, _, log = mergeCLI(t, append(slices.Clone(files), "--max-clock-offset", "0")...)
	if code != 0 || !strings.Contains(log, "shard 1/3") || !strings.Contains(log, "offset 80ms") || !strings.Contains(log, "NOT COMPARABLE") {
		t.Errorf("--max-clock-offset 0: exit %d, want 0 with the offsets printed and the run marked:\n%s", code, log)
	}
	if code, _, log = mergeCLI(t, append(slices.Clone(files), "--max-clock-offset", "100ms")...); code != 0 || strings.Contains(log, "NOT COMPARABLE") {
		t.Errorf("within --max-clock-offset: exit %d\n%s", code, log)
	}

	code, _, log = mergeCLI(t, files[0], files[2], "--max-clock-offset", "0")
	if code != ExitFailed || !strings.Contains(log, "shard 1 of 3 missing") {
		t.Errorf("missing shard: exit %d, want %d naming shard 1:\n%s", code, ExitFailed, log)
	}
	if code, _, log = mergeCLI(t, files[0], files[0], files[1], "--max-clock-offset", "0"); code != ExitBadInput || !strings.Contains(log, "both shard 0") {
		t.Errorf("a shard twice: exit %d\n%s", code, log)
	}
	raw, err := os.ReadFile(files[2])
	if err != nil {
		t.Fatal(err)
	}
	other := filepath.Join(t.TempDir(), "other.json")
	if err := os.WriteFile(other, bytes.Replace(raw, []byte(`"seed":5,"ignore_eos"`), []byte(`"seed":6,"ignore_eos"`), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	if code, _, log = mergeCLI(t, files[0], files[1], other, "--max-clock-offset", "0"); code != ExitBadInput || !strings.Contains(log, "not a shard of") || !strings.Contains(log, "spec") {
		t.Errorf("another run's shard: exit %d\n%s", code, log)
	}
	plain := filepath.Join(t.TempDir(), "plain.json")
	if code, _, log := benchCLI(t, "--url", url, "--num-prompts", "2", "--input-tokens", "8", "--output-tokens", "2", "--progress", "off",
		"--no-server-metrics", "--output-json", plain); code != 0 {
		t.Fatalf("plain run: exit %d\n%s", code, log)
	}
	if code, _, log = mergeCLI(t, plain); code != ExitBadInput || !strings.Contains(log, "not a shard's file") {
		t.Errorf("a plain run's file: exit %d\n%s", code, log)
	}
}

// --shard's own checks: a sharded run needs a shared start and seed and
// an output file, and is one run; the index defaults from an Indexed
// Job's JOB_COMPLETION_INDEX.
func TestShardFlagsRefused(t *testing.T) {
	start := time.Now().Add(time.Minute).UTC().Format(time.RFC3339)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--shard", "0/2", "--seed", "1", "--output-json", "x.json"}, "needs --start-at"},
		{[]string{"--shard", "0/2", "--start-at", start, "--output-json", "x.json"}, "needs --seed"},
		{[]string{"--shard", "0/2", "--start-at", start, "--seed", "1"}, "needs --output-json"},
		{[]string{"--shard", "0/2", "--start-at", start, "--seed", "1", "--output-json", "x.json", "--sweep", "--goodput", "ttft:9"}, "one run"},
		{[]string{"--shard", "2/2"}, "want 0 to 1"},
		{[]string{"--shard", "a/2"}, "want a whole number"},
		{[]string{"--shard", "1"}, "give the count"},
		{[]string{"--shard-count", "3", "--start-at", start}, "JOB_COMPLETION_INDEX"},
		{[]string{"--start-at", "tomorrow"}, "RFC 3339"},
		{[]string{"--start-at", "2099-01-01T00:00:00Z"}, "more than"},
		{[]string{"--start-at", "2020-01-01T00:00:00Z"}, "passed"},
	} {
		code, _, log := benchCLI(t, append([]string{"--url", "http://127.0.0.1:1"}, c.args...)...)
		if code != ExitBadInput || !strings.Contains(log, c.want) {
			t.Errorf("%v: exit %d, want %d with %q:\n%s", c.args, code, ExitBadInput, c.want, log)
		}
	}
	t.Setenv("JOB_COMPLETION_INDEX", "7")
	code, _, log := benchCLI(t, "--url", "http://127.0.0.1:1", "--shard-count", "4")
	if code != ExitBadInput || !strings.Contains(log, "JOB_COMPLETION_INDEX: shard index 7: want 0 to 3") {
		t.Errorf("JOB_COMPLETION_INDEX out of range: exit %d\n%s", code, log)
	}
}

// The kustomize component's flag files (kingpin's @file, one flag a
// line) parse with bench's and bench merge's flags as they are shipped.
func TestBenchShardsManifestArgs(t *testing.T) {
	const dir = "../../../deploy/kubernetes/components/bench-shards/"
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	if _, err := app.Parse([]string{"bench", "@" + dir + "args", "--output-json=/results/shard-$(JOB_COMPLETION_INDEX).json"}); err != nil {
		t.Fatal(err)
	}
	env := &benchEnv{b: &b.Config}
	t.Setenv("JOB_COMPLETION_INDEX", "3")
	if err := env.parseDecide(); err != nil {
		t.Fatal(err)
	}
	if err := env.parseShard(); err != nil && !strings.Contains(err.Error(), "passed") { // the shipped date is a placeholder
		t.Fatal(err)
	}
	if b.Shard.ShardCount != 4 || !b.SeedSet || b.Shard.StartAt == "" || b.Goodput != "ttft:500 tpot:50" {
		t.Errorf("args: %+v, seed set %v, goodput %q", b.Shard, b.SeedSet, b.Goodput)
	}
	if s, err := shard.Parse(b.Shard.Shard, b.Shard.ShardCount, os.Getenv); err != nil || s != (shard.Shard{Index: 3, Count: 4}) {
		t.Errorf("shard from JOB_COMPLETION_INDEX: %v %v", s, err)
	}
	app = kingpin.New("llm-prober", "")
	b = NewCommand(app)
	if _, err := app.Parse([]string{"bench", "merge", "@" + dir + "merge-args"}); err != nil {
		t.Fatal(err)
	}
	if len(b.merge.Files) != 4 || b.merge.MaxClockOffset != 50*time.Millisecond || b.merge.OutputJSON == "" {
		t.Errorf("merge-args: %+v", b.merge.Config)
	}
}
