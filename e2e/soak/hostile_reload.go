package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"
)

// reloadResult is one POST /-/reload the harness made.
type reloadResult struct {
	at      time.Duration // into the hostile phase
	what    string
	status  int
	took    time.Duration
	shows   string // the generation /config shows afterwards
	problem string // a broken expectation, or ""
}

// reloader writes the config file and reloads, timing /-/ready all along.
type reloader struct {
	o       options
	file    string
	base    string
	targets map[string]string
	secret  string // the file holding redirectSecret
	w       *watch
	gen     int // the generation the prober should be running
}

// good writes generation gen and expects the reload to apply it.
func (r *reloader) good(gen int, what string) reloadResult {
	return r.goodText(gen, hostileConfig(r.o, r.targets, r.secret, gen), what)
}

// goodText writes text, generation gen, and expects the reload to apply it.
func (r *reloader) goodText(gen int, text, what string) reloadResult {
	if err := os.WriteFile(r.file, []byte(text), 0o600); err != nil {
		return reloadResult{what: what, problem: err.Error()}
	}
	res := r.post(what)
	if res.status == http.StatusOK {
		r.gen = gen
	} else if res.problem == "" {
		res.problem = fmt.Sprintf("good config: HTTP %d", res.status)
	}
	if res.problem == "" && res.shows != generationLabel(gen) {
		res.problem = fmt.Sprintf("/config shows %s after the reload, want %s", res.shows, generationLabel(gen))
	}
	return res
}

// hostile writes a config that must be refused fast, with the running
// config kept.
func (r *reloader) hostile(text, what string) reloadResult {
	if err := os.WriteFile(r.file, []byte(text), 0o600); err != nil {
		return reloadResult{what: what, problem: err.Error()}
	}
	return r.refused(r.post(what))
}

func (r *reloader) post(what string) reloadResult {
	stop := make(chan struct{})
	hammered := make(chan struct{})
	go func() { r.w.hammer(stop); close(hammered) }()
	defer func() { close(stop); <-hammered }()
	time.Sleep(20 * time.Millisecond) // the hammer is running before the reload starts
	res := reloadResult{what: what}
	start := time.Now()
	resp, err := http.Post(r.base+"/-/reload", "", nil)
	res.took = time.Since(start)
	if err != nil {
		res.problem = err.Error()
		return res
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	res.status = resp.StatusCode
	if res.status != http.StatusOK {
		fmt.Printf("          reload answer: %s\n", truncateLine(strings.TrimSpace(string(body)), 200))
	}
	res.shows = r.shownGeneration()
	time.Sleep(100 * time.Millisecond) // and after it
	return res
}

// shownGeneration finds the generation label in /config.
func (r *reloader) shownGeneration() string {
	resp, err := http.Get(r.base + "/config")
	if err != nil {
		return err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	for _, line := range strings.Split(string(b), "\n") {
		if _, v, ok := strings.Cut(line, "generation: "); ok {
			return strings.Trim(strings.TrimSpace(v), `"'`)
		}
	}
	return "(none)"
}

func truncateLine(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}
