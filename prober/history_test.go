package prober

import (
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"
)

func TestHistoryKeepsFailuresApart(t *testing.T) {
	h := NewHistory(3, 2)
	now := time.Unix(0, 0)
	h.now = func() time.Time { now = now.Add(time.Second); return now }
	h.Observe(&Result{ID: "f0", Reason: ReasonTimeoutFirstToken, Err: errors.New("slow")})
	for i := range 10 {
		h.Observe(&Result{ID: fmt.Sprint("s", i), ITL: []time.Duration{3, 1, 2}})
	}
	if _, ok := h.Get("f0"); !ok {
		t.Error("a burst of successes pushed out the failure")
	}
	if _, ok := h.Get("s6"); ok {
		t.Error("s6 kept beyond the 3 successes")
	}
	got := h.Recent()
	var ids []string
	for _, e := range got {
		ids = append(ids, e.Result.ID)
	}
	if strings.Join(ids, ",") != "s9,s8,s7,f0" {
		t.Errorf("recent %v, want newest first", ids)
	}
	e, _ := h.Get("s9")
	if e.Result.ITL != nil || e.ITL.Count != 3 || e.ITL.Min != 1 || e.ITL.Max != 3 || e.ITL.P50 != 2 {
		t.Errorf("ITL not summarised: %+v %+v", e.Result.ITL, e.ITL)
	}
	f, _ := h.Get("f0")
	if f.Error != "slow" || f.Result.Err != nil {
		t.Errorf("error %q / %v", f.Error, f.Result.Err)
	}
}

func TestHistoryBoundsSize(t *testing.T) {
	h := NewHistory(1, 1)
	log := make([]string, 10*historyLogLines)
	for i := range log {
		log[i] = strings.Repeat("x", 10*historyLogLineBytes)
	}
	h.Add(&Result{ID: "big", Output: strings.Repeat("y", MaxOutputBytes), ITL: make([]time.Duration, 1<<16)}, log, true)
	e, _ := h.Get("big")
	if len(e.Result.Output) > historyOutputBytes || len(e.Log) > historyLogLines+1 {
		t.Errorf("output %d bytes, %d log lines", len(e.Result.Output), len(e.Log))
	}
	for _, l := range e.Log {
		if len(l) > historyLogLineBytes+len("…") {
			t.Fatalf("log line of %d bytes", len(l))
		}
	}
	if !e.OnDemand {
		t.Error("on-demand flag lost")
	}
}
