package bench

import (
	"encoding/csv"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// stallingChat streams tokens one content chunk each, 5 ms apart; every
// third request it answers stalls for stall before its fifth chunk: a
// preemption mid-answer, the mean TPOT hardly moved.
func stallingChat(tokens int, stall time.Duration, stalled *atomic.Int64) http.HandlerFunc {
	var n atomic.Int64
	return func(w http.ResponseWriter, r *http.Request) {
		stallThis := n.Add(1)%3 == 0
		if stallThis {
			stalled.Add(1)
		}
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		for i := range tokens {
			time.Sleep(5 * time.Millisecond)
			if stallThis && i == 4 {
				time.Sleep(stall)
			}
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"t%d \"}}]}\n\n", i)
			_ = rc.Flush()
		}
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{},\"finish_reason\":\"length\"}],\"usage\":{\"prompt_tokens\":8,\"completion_tokens\":%d}}\n\n", tokens)
		fmt.Fprint(w, "data: [DONE]\n\n")
		_ = rc.Flush()
	}
}

// Issue 34: a request that froze 1 s mid-answer passes a 100 ms TPOT
// objective (its mean gap is ~31 ms) but fails max_itl:500; the run's
// SLO attainment, --fail-on, the verdict, the JSON and the CSV say so.
func TestBenchCLIStallFailsMaxITL(t *testing.T) {
	var stalled atomic.Int64
	url := mocktarget.Serve(t, mocktarget.FixedMock(), stallingChat(40, time.Second, &stalled))
	dir := t.TempDir()
	out, csvPath := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.csv")
	code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--max-concurrency", "3",
		"--num-prompts", "6", "--input-tokens", "8", "--output-tokens", "40", "--goodput", "tpot:100 max_itl:500",
		"--fail-on", "attainment<99", "--progress", "off", "--metrics-interval", "50ms", "--output-json", out, "--output-csv", csvPath)
	if code != ExitFailOn || !strings.Contains(log, "fail-on attainment<99 holds") {
		t.Errorf("exit %d, want %d\n%s\n%s", code, ExitFailOn, stdout, log)
	}
	n := int(stalled.Load())
	if n == 0 {
		t.Fatalf("no request stalled:\n%s", stdout)
	}
	for _, want := range []string{"SLOs (--goodput, ms):                    tpot:100 max_itl:500", "SLO attainment (%)",
		fmt.Sprintf("  requests that missed max_itl:          %d", n), "Worst gap per request (max ITL)",
		fmt.Sprintf("max_itl: %d of 6 successful requests stalled longer than the 500 ms objective", n),
		fmt.Sprintf("%d of them met the TPOT objective", n)} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	var res struct {
		Attainment float64        `json:"llm_prober_slo_attainment_percent"`
		Missed     map[string]int `json:"llm_prober_slo_missed_by"`
		P99MaxITL  float64        `json:"llm_prober_p99_max_itl_ms"`
		Requests   []struct {
			TPOT float64 `json:"tpot"`
			Max  float64 `json:"max_itl"`
		} `json:"requests"`
	}
	readJSON(t, out, &res)
	if res.Missed["max_itl"] != n || res.Missed["tpot"] != 0 || res.P99MaxITL < 1000 || res.Attainment != 100*float64(6-n)/6 {
		t.Errorf("JSON: attainment %g, missed %v, p99 worst gap %g ms; want %d stalls", res.Attainment, res.Missed, res.P99MaxITL, n)
	}
	over := 0
	for _, r := range res.Requests {
		if r.Max >= 1 {
			over++
			if r.TPOT >= 0.1 {
				t.Errorf("a stalled request's TPOT %g s: the stall should hide in the mean", r.TPOT)
			}
		}
	}
	if over != n {
		t.Errorf("%d requests carry a worst gap of 1 s or more, want %d", over, n)
	}
	f, err := os.Open(csvPath)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil || len(rows) != 7 {
		t.Fatalf("CSV: %d rows, %v", len(rows), err)
	}
	col := -1
	for i, h := range rows[0] {
		if h == "itl_max_ms" {
			col = i
		}
	}
	over = 0
	for _, r := range rows[1:] {
		if v, _ := strconv.ParseFloat(r[col], 64); v >= 1000 {
			over++
		}
	}
	if over != n {
		t.Errorf("CSV: %d rows with itl_max_ms ≥ 1000, want %d", over, n)
	}
}

// Issue 34: a mixed-length run against a server whose prefill grows with
// the prompt (0.5 ms a token): a fixed ttft:200 fails every long prompt
// and passes the short ones, and the report shows it by input-length
// bucket; a TTFT objective with a per-token part passes them all.
func TestBenchCLIAttainmentByInputLength(t *testing.T) {
	o := mocktarget.FixedMock()
	o.PrefillPerToken = 500 * time.Microsecond
	o.ITL = mockvllm.Dist{Mean: time.Millisecond}
	url := mocktarget.Serve(t, o, nil)
	type bucket struct {
		Min     int     `json:"input_tokens_min"`
		Max     int     `json:"input_tokens_max"`
		Percent float64 `json:"slo_attainment_percent"`
	}
	run := func(goodput string) ([]bucket, float64, string, string) {
		dir := t.TempDir()
		out, html := filepath.Join(dir, "r.json"), filepath.Join(dir, "r.html")
		code, stdout, log := benchCLI(t, "--url", url, "--request-rate", "inf", "--max-concurrency", "1", "--seed", "7",
			"--num-prompts", "16", "--input-tokens", "512", "--range-ratio", "0.9", "--output-tokens", "2", "--goodput", goodput,
			"--progress", "off", "--metrics-interval", "50ms", "--output-json", out, "--report", html)
		if code != 0 {
			t.Fatalf("exit %d\n%s\n%s", code, stdout, log)
		}
		var res struct {
			Buckets    []bucket `json:"llm_prober_slo_attainment_by_input_tokens"`
			Attainment float64  `json:"llm_prober_slo_attainment_percent"`
		}
		readJSON(t, out, &res)
		page, err := os.ReadFile(html)
		if err != nil {
			t.Fatal(err)
		}
		return res.Buckets, res.Attainment, stdout, string(page)
	}
	fixed, fixedAll, stdout, page := run("ttft:200")
	if len(fixed) < 3 {
		t.Fatalf("%d buckets, want 3 or more (prompts of 52-972 tokens):\n%s", len(fixed), stdout)
	}
	lo, hi := fixed[0], fixed[len(fixed)-1]
	if hi.Min != 512 || hi.Percent != 0 || lo.Percent <= hi.Percent {
		t.Errorf("fixed ttft:200: shortest bucket %+v, longest %+v; want the long prompts all missing", lo, hi)
	}
	for _, want := range []string{"SLO attainment by input tokens", "512-1023", "TTFT SLO ms"} {
		if !strings.Contains(stdout, want) || !strings.Contains(page, want) {
			t.Errorf("text or HTML report lacks %q:\n%s", want, stdout)
		}
	}
	scaled, scaledAll, stdout, _ := run("ttft:150+0.6/tok")
	if scaledAll <= fixedAll || scaled[len(scaled)-1].Percent <= hi.Percent || !strings.Contains(stdout, "ttft:150+0.6/tok") {
		t.Errorf("ttft:150+0.6/tok: attainment %g%% (fixed %g%%), buckets %+v\n%s", scaledAll, fixedAll, scaled, stdout)
	}
}

// A malformed per-token TTFT is a one-line exit-2 error naming the flag.
func TestBenchCLIBadTTFTPerToken(t *testing.T) {
	for _, bad := range []string{"ttft:200+x/tok", "ttft:-1+0.5/tok", "ttft:200+0/tok", "ttft:200+0.5/tok2", "max_itl:0", "max_itl:nan"} {
		code, _, log := benchCLI(t, "--url", "http://127.0.0.1:1", "--goodput", bad, "--num-prompts", "1")
		if code != ExitBadInput || !strings.Contains(log, "--goodput") || strings.Count(strings.TrimSpace(log), "\n") > 0 {
			t.Errorf("--goodput %s: exit %d, want %d with one line naming the flag:\n%s", bad, code, ExitBadInput, log)
		}
	}
}
