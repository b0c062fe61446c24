package mockvllm

import (
	"encoding/json"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// Server is the mock vLLM server. It is an http.Handler; it starts no
// goroutines of its own (each request runs on its handler goroutine).
type Server struct {
	o       Options
	eng     *engine
	m       *metrics
	rng     *lockedRand
	traces  *traceStore
	prefix  *prefixCache // nil: PrefixCacheHitRate applies
	mux     *http.ServeMux
	dead    atomic.Bool
	resets  atomic.Int64 // POST /reset_prefix_cache calls
	stalls  atomic.Int64 // generation requests counted for DecodeStall
	closed  chan struct{}
	once    sync.Once
	started time.Time
}

// New builds a Server; zero fields of o take DefaultOptions values where a
// zero is unusable (see Options).
func New(o Options) *Server {
	o = o.withDefaults()
	s := &Server{o: o, rng: newLockedRand(o.Seed), traces: newTraceStore(o.TraceCapacity),
		closed: make(chan struct{}), started: time.Now()}
	s.eng = &engine{o: &s.o, rng: s.rng, closed: s.closed}
	if o.PrefixCacheBlocks > 0 {
		s.prefix = newPrefixCache(o.PrefixCacheBlocks, o.BlockSize)
	}
	s.m = newMetrics(&s.o, s.eng)
	s.eng.m = s.m
	s.dead.Store(o.EngineDead)

	s.mux = http.NewServeMux()
	s.mux.HandleFunc("POST /v1/chat/completions", s.handleGenerate(chatEndpoint))
	s.mux.HandleFunc("POST /v1/completions", s.handleGenerate(textEndpoint))
	s.mux.HandleFunc("GET /v1/models", s.handleModels)
	s.mux.HandleFunc("POST /tokenize", s.handleTokenize)
	s.mux.HandleFunc("GET /health", s.handleHealth)
	s.mux.HandleFunc("GET /version", s.handleVersion)
	s.mux.HandleFunc("POST /reset_prefix_cache", s.handleResetPrefixCache)
	s.mux.HandleFunc("GET /trace", s.handleTrace)
	s.mux.Handle("GET /metrics", promhttp.HandlerFor(s.m.reg, promhttp.HandlerOpts{}))
	return s
}

// ServeHTTP routes to the vLLM endpoints.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) { s.mux.ServeHTTP(w, r) }

// Options returns the effective options (defaults applied).
func (s *Server) Options() Options { return s.o }

// Emissions returns the trace of a finished request by its id (the
// X-Request-Id it sent, or the one the server generated and echoed). A
// trace is stored before the response's last write, so it is available as
// soon as a client has read the whole response.
func (s *Server) Emissions(requestID string) (Trace, bool) { return s.traces.get(requestID) }

// Stats returns the simulated engine's current state.
func (s *Server) Stats() Stats { return s.eng.Stats() }

// SetEngineDead switches the injected "engine dead" state: /health
// answers 503 and new generation requests get 500.
func (s *Server) SetEngineDead(dead bool) { s.dead.Store(dead) }

// Close aborts all in-flight requests (queued, generating or stalled) so
// their handlers return promptly; later generation requests get 503. Call
// it before closing the http.Server that serves s. Safe to call twice.
func (s *Server) Close() { s.once.Do(func() { close(s.closed) }) }

func (s *Server) isClosed() bool {
	select {
	case <-s.closed:
		return true
	default:
		return false
	}
}

func (s *Server) handleModels(w http.ResponseWriter, _ *http.Request) {
	created := s.started.Unix()
	writeJSON(w, http.StatusOK, modelList{Object: "list", Data: []modelCard{{
		ID: s.o.Model, Object: "model", Created: created, OwnedBy: "vllm", Root: s.o.Model,
		MaxModelLen: s.o.MaxModelLen,
		Permission: []permission{{ID: "modelperm-mock", Object: "model_permission", Created: created,
			AllowSampling: true, AllowLogprobs: true, AllowView: true, Organization: "*"}},
	}}})
}

// handleHealth mirrors vLLM: empty 200, or empty 503 when the engine is dead.
func (s *Server) handleHealth(w http.ResponseWriter, _ *http.Request) {
	if s.dead.Load() {
		w.WriteHeader(http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusOK)
}

// handleResetPrefixCache empties the hashed prefix cache, as vLLM's
// endpoint does (there only with VLLM_SERVER_DEV_MODE=1): 200, empty body.
func (s *Server) handleResetPrefixCache(w http.ResponseWriter, _ *http.Request) {
	if s.prefix != nil {
		s.prefix.reset()
	}
	s.resets.Add(1)
	w.WriteHeader(http.StatusOK)
}

// PrefixCacheResets is how many times POST /reset_prefix_cache was called.
func (s *Server) PrefixCacheResets() int { return int(s.resets.Load()) }

func (s *Server) handleVersion(w http.ResponseWriter, _ *http.Request) {
	writeJSON(w, http.StatusOK, map[string]string{"version": s.o.Version})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	b, _ := json.Marshal(v)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_, _ = w.Write(b)
}
