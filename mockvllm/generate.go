package mockvllm

import (
	"context"
	"crypto/rand"
	"fmt"
	"net/http"
	"time"
)

// endpoint describes the chat or completions flavour of a response.
type endpoint struct {
	name, chunkObject, object, idPrefix string
	chat                                bool
}

var (
	chatEndpoint = endpoint{"chat", "chat.completion.chunk", "chat.completion", "chatcmpl-", true}
	textEndpoint = endpoint{"completions", "text_completion", "text_completion", "cmpl-", false}
)

// gen is the state of one generation request on its handler goroutine.
type gen struct {
	s       *Server
	ep      endpoint
	w       http.ResponseWriter
	rc      *http.ResponseController
	ctx     context.Context
	tr      *Trace
	id      string // response id field
	created int64
	fault   Fault
	req     *request
	reason  string // finish reason if generation completes
	usage   bool   // stream_options.include_usage
	contUse bool   // continuous_usage_stats (only with include_usage)
	err     error  // first write error: the client is gone
}

func (s *Server) handleGenerate(ep endpoint) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		arrival := time.Now()
		id := r.Header.Get("X-Request-Id")
		if id == "" {
			id = rand.Text()
		}
		w.Header().Set("X-Request-Id", id)
		g := &gen{s: s, ep: ep, w: w, rc: http.NewResponseController(w), ctx: r.Context(),
			tr: &Trace{ID: id, Endpoint: ep.name, Arrival: arrival}, id: ep.idPrefix + id,
			created: arrival.Unix()}
		g.serve(r)
	}
}

// serve validates the request, applies pre-stream faults and hands over
// to the streaming or plain response path.
func (g *gen) serve(r *http.Request) {
	s := g.s
	body, err := parseRequest(r.Body, g.ep.chat)
	if err != nil {
		g.fail(http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	g.tr.Stream = body.Stream
	if body.Model != "" && body.Model != s.o.Model {
		g.fail(http.StatusNotFound, "NotFoundError", fmt.Sprintf("The model `%s` does not exist.", body.Model))
		return
	}
	if g.fault, err = s.pickFault(r); err != nil {
		g.fail(http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	g.tr.Fault = g.fault
	switch {
	case s.isClosed():
		g.fail(http.StatusServiceUnavailable, "ServiceUnavailableError", "server is shutting down")
		return
	case s.dead.Load():
		g.fail(http.StatusInternalServerError, "InternalServerError", "EngineCore encountered an issue (injected engine dead)")
		return
	}
	switch g.fault {
	case FaultRateLimit:
		g.w.Header().Set("Retry-After", "1")
		g.fail(http.StatusTooManyRequests, "RateLimitError", "rate limit exceeded (injected)")
		return
	case FaultError500:
		g.fail(http.StatusInternalServerError, "InternalServerError", "internal server error (injected)")
		return
	case FaultError503:
		g.fail(http.StatusServiceUnavailable, "ServiceUnavailableError", "service unavailable (injected)")
		return
	case FaultNotSSE:
		g.tr.Status = http.StatusOK
		g.sendJSON(http.StatusOK, apiError{errorInfo{Message: "error body instead of a stream (injected)",
			Type: "InternalServerError", Code: http.StatusInternalServerError}}, 0)
		return
	}

	maxTok, err := body.maxTokens(s.o.DefaultMaxTokens)
	if err != nil {
		g.fail(http.StatusBadRequest, "BadRequestError", err.Error())
		return
	}
	tokens := body.tokens(s.o.CharsPerToken)
	if g.ep.chat {
		tokens = s.withTemplate(tokens)
	}
	prompt := max(len(tokens), 1)
	if s.o.TruncateAtContext && prompt < s.o.MaxModelLen {
		maxTok = min(maxTok, s.o.MaxModelLen-prompt)
	}
	if total := prompt + maxTok; total > s.o.MaxModelLen || (s.eng.kvLimited() && s.eng.blocksFor(total) > s.o.KVBlocks) {
		g.fail(http.StatusBadRequest, "BadRequestError", fmt.Sprintf(
			"This model's maximum context length is %d tokens (KV cache: %d blocks of %d). However, you requested %d tokens (%d in the messages, %d in the completion).",
			s.o.MaxModelLen, s.o.KVBlocks, s.o.BlockSize, total, prompt, maxTok))
		return
	}
	cached := min(int(float64(prompt)*s.o.PrefixCacheHitRate), prompt-1)
	if s.prefix != nil {
		cached = s.prefix.lookup(tokens, body.CacheSalt)
	}
	g.tr.PromptTokens, g.tr.CachedTokens = prompt, max(cached, 0)
	g.req = &request{prompt: prompt, cached: g.tr.CachedTokens, target: maxTok, arrival: g.tr.Arrival,
		prefill: time.Duration(prompt-g.tr.CachedTokens) * s.o.PrefillPerToken}
	g.reason = "length"
	if eos := max(s.o.EOSAfter, body.MinTokens); s.o.EOSAfter > 0 && !body.IgnoreEOS && eos < maxTok {
		g.req.target, g.reason = eos, "stop"
	}
	g.req.stall, g.req.stallAfter = s.pickStall()
	g.tr.Stall = g.req.stall
	if g.fault == FaultEmpty {
		g.req.target, g.reason = 0, "stop"
	}
	if so := body.StreamOptions; so != nil {
		g.usage, g.contUse = so.IncludeUsage, so.IncludeUsage && so.ContinuousUsageStats
	}

	switch {
	case g.fault == FaultStall:
		g.stall()
	case body.Stream:
		g.stream()
	default:
		g.respond()
	}
}

// midFault reports whether a mid-stream fault should fire now, after
// chunks content chunks, at most once.
func (g *gen) midFault(chunks int, final string, fired *bool) bool {
	switch g.fault {
	case FaultStreamError, FaultDisconnect, FaultStallMid, FaultMalformed:
	default:
		return false
	}
	if *fired || (chunks < g.s.o.FaultAfterChunks && final == "") {
		return false
	}
	*fired = true
	return true
}

// wait blocks like a hung server: until the client leaves, the server
// closes or StallTimeout passes.
func (g *gen) wait() {
	t := time.NewTimer(g.s.o.StallTimeout)
	defer t.Stop()
	select {
	case <-g.ctx.Done():
	case <-g.s.closed:
	case <-t.C:
	}
}

// stall is FaultStall: headers, then silence; the engine is not involved.
func (g *gen) stall() {
	g.headers()
	g.wait()
	g.tr.FinishReason = "abort"
	g.publish(time.Now())
}

// publish stores the finished trace; the trace is not modified after.
func (g *gen) publish(end time.Time) {
	g.tr.End = end
	g.s.traces.put(g.tr)
}

// fail sends a JSON error before any stream.
func (g *gen) fail(status int, typ, msg string) {
	g.tr.Status = status
	g.sendJSON(status, apiError{errorInfo{Message: msg, Type: typ, Code: status}}, 0)
}
