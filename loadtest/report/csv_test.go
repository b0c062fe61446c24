package report

import (
	"encoding/csv"
	"errors"
	"math"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/prober"
)

// Rows read back through encoding/csv with every field: quotes, commas
// and newlines in an error message survive (RFC 4180).
func TestCSVOutRows(t *testing.T) {
	path := filepath.Join(t.TempDir(), "r.csv")
	c, err := CreateCSV(path)
	if err != nil {
		t.Fatal(err)
	}
	c.Point, c.Rate = "rate", RateText(&loadtest.Options{Rate: 2.5})
	ok := loadtest.Record{Index: 7, Planned: 1e9, Start: 1_000_250_000, TTFT: 20e6, TPOT: 5e6, E2EL: 35e6,
		PlannedPrompt: 100, PromptTokens: 104, CachedTokens: 64, OutputTokens: 4, Turn: 2, MaxGapUs: 6000}
	c.Add(&ok, &prober.Result{ITL: []time.Duration{4e6, 5e6, 6e6}})
	c.Point, c.Rate = "", RateText(&loadtest.Options{Rate: math.Inf(1)})
	bad := loadtest.Record{Index: 8, Warmup: true, Reason: prober.ReasonRateLimited}
	c.Add(&bad, &prober.Result{Err: errors.New("HTTP 429: \"slow down\",\nretry later")})
	if err := c.Close(); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	want := [][]string{csvHeader,
		{"rate", "2.5", "7", "false", "1", "1.00025", "0.25", "20", "5", "5", "6", "3", "35", "100", "104", "64", "4", "true", "", "", "2"},
		{"", "inf", "8", "true", "0", "0", "0", "0", "0", "", "0", "0", "0", "0", "0", "0", "0", "false", "rate_limited",
			"HTTP 429: \"slow down\",\nretry later", ""}}
	if len(rows) != len(want) {
		t.Fatalf("%d rows: %q", len(rows), rows)
	}
	for i := range want {
		if !slices.Equal(rows[i], want[i]) {
			t.Errorf("row %d:\n got %q\nwant %q", i, rows[i], want[i])
		}
	}
	if RateText(&loadtest.Options{Concurrency: 4, Rate: 3}) != "" {
		t.Error("a closed loop has no rate")
	}
}

// A bad path fails at creation, before any run.
func TestCreateCSVBadPath(t *testing.T) {
	if _, err := CreateCSV(filepath.Join(t.TempDir(), "no", "such", "dir.csv")); err == nil {
		t.Error("no error")
	}
}
