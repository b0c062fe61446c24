package prober

import (
	"testing"
	"time"
)

// Readiness and the status page never wait for a reload, even one that
// waits for a slow job to stop (a probe busy in a huge event, say).
func TestSchedulerReadersDoNotWaitForApply(t *testing.T) {
	_, srv := newHoldServer(t, 0)
	s, _ := newTestScheduler(t)
	cfg := schedConfig(srv.URL, 2, time.Hour, time.Minute, 8)
	s.Apply(cfg)

	// A job that takes until release to stop, removed by the next Apply.
	release := make(chan struct{})
	slow := &job{target: cfg.Targets[1], module: cfg.Modules["chat"], cancel: func() {}, done: release}
	s.mu.Lock()
	s.jobs[jobKey{"t1", "chat"}].cancel()
	<-s.jobs[jobKey{"t1", "chat"}].done
	s.jobs[jobKey{"t1", "chat"}] = slow
	s.mu.Unlock()
	applied := make(chan struct{})
	go func() {
		s.Apply(schedConfig(srv.URL, 1, time.Hour, time.Minute, 8))
		close(applied)
	}()
	defer func() { close(release); <-applied }()

	answered := make(chan bool)
	go func() {
		ok := s.Running()
		_ = s.Statuses()
		answered <- ok
	}()
	select {
	case ok := <-answered:
		if !ok {
			t.Error("not running during a reload")
		}
	case <-time.After(10 * time.Second): // blocked until release, before the fix
		t.Fatal("Running/Statuses waited for a reload that waits for a job to stop")
	}
	select {
	case <-applied:
		t.Fatal("Apply returned before the removed job stopped")
	default:
	}
}

// A job keeps a summary of its last probe, not the probe: no per-token
// gaps, no answer, no connection.
func TestSchedulerKeepsASummaryOfTheLastProbe(t *testing.T) {
	_, srv := newHoldServer(t, 0)
	s, _ := newTestScheduler(t)
	s.Apply(schedConfig(srv.URL, 1, 200*time.Millisecond, 150*time.Millisecond, 4))
	var last *Result
	for deadline := time.Now().Add(10 * time.Second); last == nil && time.Now().Before(deadline); time.Sleep(20 * time.Millisecond) {
		if st := s.Statuses(); len(st) == 1 {
			last = st[0].Last
		}
	}
	if last == nil || !last.Success() {
		t.Fatalf("no successful probe: %+v", last)
	}
	if last.ContentChunks < 2 || last.ITL != nil || last.Output != "" || last.conn != nil || last.trace != nil {
		t.Errorf("kept %d chunks' ITL %v, output %q, conn %v: want only the summary", last.ContentChunks, last.ITL, last.Output, last.conn)
	}
}
