package main

import (
	"fmt"
	"html"
	"io"
	"net/http"
	"regexp"
	"strings"
	"sync"
	"time"
)

// probeRecord is one probe as the prober's /logs page shows it: Started is
// when the request was sent, Finished when the finished probe entered the
// history, so Finished-Started is at least the probe's own duration.
type probeRecord struct {
	id, target string
	start, end time.Time
	reason     string // "" for a success
	err        string
}

func (p probeRecord) duration() time.Duration { return p.end.Sub(p.start) }

// probeLog collects every probe from the history: the landing page lists
// the ids of the last 100 successes and 100 failures, polled often enough
// (every 5s, at 2 probes/s) that none is pushed out unseen.
type probeLog struct {
	base    string
	client  *http.Client
	mu      sync.Mutex
	records map[string]probeRecord
	errs    []string
	stop    chan struct{}
	done    chan struct{}
}

var logsID = regexp.MustCompile(`/logs\?id=([^"&<]+)`)

func startProbeLog(base string) *probeLog {
	p := &probeLog{base: base, client: &http.Client{Timeout: 10 * time.Second},
		records: map[string]probeRecord{}, stop: make(chan struct{}), done: make(chan struct{})}
	go func() {
		defer close(p.done)
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-p.stop:
				p.poll() // the last probes
				return
			case <-t.C:
				p.poll()
			}
		}
	}()
	return p
}

func (p *probeLog) close() map[string]probeRecord {
	close(p.stop)
	<-p.done
	return p.records
}

func (p *probeLog) poll() {
	page, err := p.get("/")
	if err != nil {
		p.errs = append(p.errs, err.Error())
		return
	}
	for _, m := range logsID.FindAllStringSubmatch(page, -1) {
		id := m[1]
		p.mu.Lock()
		_, seen := p.records[id]
		p.mu.Unlock()
		if seen {
			continue
		}
		text, err := p.get("/logs?id=" + id)
		if err != nil {
			continue // pushed out between the two requests
		}
		r, err := parseLogs(id, text)
		if err != nil {
			p.errs = append(p.errs, err.Error())
			continue
		}
		p.mu.Lock()
		p.records[id] = r
		p.mu.Unlock()
	}
}

func (p *probeLog) get(path string) (string, error) {
	resp, err := p.client.Get(p.base + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("GET %s: HTTP %d", path, resp.StatusCode)
	}
	return string(b), err
}

// parseLogs reads the "Key:  value" lines of a /logs page (its <pre>).
func parseLogs(id, text string) (probeRecord, error) {
	r := probeRecord{id: id}
	var err error
	for _, line := range strings.Split(text, "\n") {
		if line == "" {
			break // the table ends; the output and log lines follow
		}
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		v = html.UnescapeString(strings.TrimSpace(v)) // the page is HTML
		switch k {
		case "Target":
			r.target = v
		case "Started":
			r.start, err = time.Parse(time.RFC3339Nano, v)
		case "Finished":
			r.end, err = time.Parse(time.RFC3339Nano, v)
		case "Outcome":
			r.reason, _ = strings.CutPrefix(v, "failed: ")
			if strings.HasPrefix(v, "succeeded") {
				r.reason = ""
			}
		case "Error":
			r.err = v
		}
		if err != nil {
			return r, fmt.Errorf("/logs?id=%s: %v", id, err)
		}
	}
	if r.target == "" || r.start.IsZero() || r.end.IsZero() {
		return r, fmt.Errorf("/logs?id=%s: no target, start or end", id)
	}
	return r, nil
}
