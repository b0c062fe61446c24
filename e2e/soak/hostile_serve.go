package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// The hostile servers run in a child process (--hostile-serve), so that
// their busy loops do not delay the harness's own timing of /-/ready.

// serverInfo is what the child prints on its first line of stdout.
type serverInfo struct {
	Control string            // host:port of the control endpoint
	Targets map[string]string // kind name -> base URL
}

// serverStats is what GET /stats on the control endpoint answers.
type serverStats struct {
	Requests             map[string]int64 // by kind, hostile requests only
	RedirectWithSecret   int64            // requests to the redirecting target that carried the secret
	DestinationRequests  int64            // requests to the server redirected to
	DestinationGotSecret int64            // of those, with the secret: must stay 0
}

type hostileServers struct {
	hostile                      atomic.Bool
	reqs                         map[string]*atomic.Int64
	withSecret, dest, destSecret atomic.Int64
}

func serveHostile() error {
	s := &hostileServers{reqs: map[string]*atomic.Int64{}}
	destURL, err := listen(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		s.dest.Add(1)
		if r.Header.Get(redirectHeader) == redirectSecret {
			s.destSecret.Add(1)
		}
		calmStream(w, r)
	}))
	if err != nil {
		return err
	}
	info := serverInfo{Targets: map[string]string{}}
	for _, k := range hostileKinds {
		h := k.handler
		if k.name == "redirect" {
			h = s.redirectTo(destURL)
		}
		n := &atomic.Int64{}
		s.reqs[k.name] = n
		url, err := listen(s.calmOr(n, h))
		if err != nil {
			return err
		}
		info.Targets[k.name] = url
	}
	ctl, err := listen(s.control())
	if err != nil {
		return err
	}
	info.Control = ctl[len("http://"):]
	if err := json.NewEncoder(os.Stdout).Encode(info); err != nil {
		return err
	}
	// Until the harness stops this process by PID, or dies (stdin closes).
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT)
	eof := make(chan struct{})
	go func() { _, _ = io.Copy(io.Discard, os.Stdin); close(eof) }()
	select {
	case <-stop:
	case <-eof:
	}
	return nil
}

func listen(h http.Handler) (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	go func() { _ = (&http.Server{Handler: h}).Serve(l) }()
	return "http://" + l.Addr().String(), nil
}

// calmOr answers a short valid stream until the run turns hostile: the
// calm phases before and after give the baseline and the end figures.
func (s *hostileServers) calmOr(n *atomic.Int64, h http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/metrics" { // the server_metrics scrapes of metricsKind
			serverMetrics(w, s.hostile.Load())
			return
		}
		if !s.hostile.Load() {
			calmStream(w, r)
			return
		}
		n.Add(1)
		h(w, r)
	}
}

func calmStream(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	_, _ = io.WriteString(w, `data: {"choices":[{"delta":{"content":"ok"}}]}`+"\n\n"+
		`data: {"choices":[{"delta":{},"finish_reason":"stop"}]}`+"\n\ndata: [DONE]\n\n")
}

func (s *hostileServers) redirectTo(dest string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(redirectHeader) == redirectSecret {
			s.withSecret.Add(1) // the secret is configured and sent to the target itself
		}
		_, _ = io.Copy(io.Discard, r.Body)
		http.Redirect(w, r, dest+r.URL.Path, http.StatusFound)
	}
}

func (s *hostileServers) control() http.Handler {
	mux := http.NewServeMux()
	mux.HandleFunc("POST /mode", func(w http.ResponseWriter, r *http.Request) {
		s.hostile.Store(r.URL.Query().Get("hostile") == "true")
	})
	mux.HandleFunc("GET /stats", func(w http.ResponseWriter, _ *http.Request) {
		st := serverStats{Requests: map[string]int64{}, RedirectWithSecret: s.withSecret.Load(),
			DestinationRequests: s.dest.Load(), DestinationGotSecret: s.destSecret.Load()}
		for k, n := range s.reqs {
			st.Requests[k] = n.Load()
		}
		_ = json.NewEncoder(w).Encode(st)
	})
	return mux
}

// metricsKind is the target whose server_metrics are scraped: while
// hostile, its /metrics is 1,000,000 series (14 MB) of a family no mapping
// reads; before the family filter, parsing one grew the prober by
// hundreds of MiB.
const metricsKind = "html"

const calmMetrics = "# TYPE vllm:num_requests_running gauge\nvllm:num_requests_running{model_name=\"hostile\"} 0\n"

var hugeMetrics = sync.OnceValue(func() []byte {
	var b bytes.Buffer
	b.WriteString("# TYPE j gauge\n")
	for i := range 1_000_000 {
		fmt.Fprintf(&b, "j{i=\"%x\"} 1\n", i)
	}
	b.WriteString(calmMetrics)
	return b.Bytes()
})

func serverMetrics(w http.ResponseWriter, hostile bool) {
	w.Header().Set("Content-Type", "text/plain; version=0.0.4")
	if !hostile {
		_, _ = io.WriteString(w, calmMetrics)
		return
	}
	_, _ = w.Write(hugeMetrics())
}
