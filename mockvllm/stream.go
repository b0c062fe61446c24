package mockvllm

import (
	"encoding/json"
	"net/http"
	"time"
)

// stream serves a streaming request: role chunk (chat) with the first
// output, one content chunk per engine step, then the finish chunk, the
// usage chunk (include_usage) and data: [DONE].
func (g *gen) stream() {
	if !g.s.o.HeadersWithFirstChunk {
		g.headers()
	}
	sent, chunks, fired, roleSent := 0, 0, false, false
	reason := g.s.eng.run(g.ctx, g.req, g.reason, func(n int, _ time.Time, final string) string {
		if g.tr.HeadersWritten.IsZero() {
			g.headers()
		}
		if g.ep.chat && !roleSent {
			// vLLM sends the role chunk when the first output arrives.
			roleSent = true
			empty := ""
			g.event(KindRole, 0, false, g.chunk(chatChunkChoice{Delta: delta{Role: "assistant", Content: &empty}}, g.usageAt(0)))
		}
		if n > 0 {
			var finish *string
			if final != "" && g.s.o.FinishOnLastChunk && (g.fault == FaultNone || g.fault == FaultMalformed) {
				finish = &final
			}
			g.event(KindContent, n, true, g.chunk(g.contentChoice(tokenText(sent, n), finish), g.usageAt(sent+n)))
			sent += n
			chunks++
		}
		if g.err == nil && g.midFault(chunks, final, &fired) {
			switch g.fault {
			case FaultStreamError:
				return "error"
			case FaultDisconnect:
				return "abort"
			case FaultStallMid:
				g.wait()
				return "abort"
			case FaultMalformed:
				g.write(KindMalformed, 0, false, []byte(`data: {"id":"`+g.id+`","object":"`+g.ep.chunkObject+`","choices":[{`+"\n\n"))
			}
		}
		if g.err != nil {
			return "abort"
		}
		return ""
	})
	g.s.eng.snapshot(g.req, g.tr)
	g.tr.FinishReason = reason
	switch {
	case g.err != nil || g.ctx.Err() != nil || g.fault == FaultStallMid:
		g.publish(time.Now())
	case g.fault == FaultDisconnect:
		g.cut()
	case reason == "error":
		g.event(KindError, 0, false, apiError{errorInfo{Message: "internal error during generation (injected)",
			Type: "InternalServerError", Code: http.StatusInternalServerError}})
		g.done()
	case reason == "abort": // server closed: end the body without [DONE]
		g.publish(time.Now())
	default:
		if !g.s.o.FinishOnLastChunk || sent == 0 {
			g.event(KindFinish, 0, false, g.chunk(g.finishChoice(reason), g.usageAt(sent)))
		}
		if g.usage {
			u := g.usageOf(sent)
			g.event(KindUsage, 0, false, g.chunk(nil, &u))
		}
		g.done()
	}
}

// headers sends the SSE response headers now.
func (g *gen) headers() {
	h := g.w.Header()
	h.Set("Content-Type", "text/event-stream; charset=utf-8")
	h.Set("Cache-Control", "no-cache")
	at := time.Now()
	g.w.WriteHeader(http.StatusOK)
	if err := g.rc.Flush(); err != nil && g.err == nil {
		g.err = err
	}
	g.tr.HeadersWritten, g.tr.Status = at, http.StatusOK
}

// event writes one data: <json> event.
func (g *gen) event(kind ChunkKind, tokens int, content bool, v any) {
	b, _ := json.Marshal(v)
	g.write(kind, tokens, content, append(append([]byte("data: "), b...), '\n', '\n'))
}

// write sends and flushes one event; only delivered writes are traced.
func (g *gen) write(kind ChunkKind, tokens int, content bool, b []byte) {
	if g.err != nil {
		return
	}
	at := time.Now()
	_, err := g.w.Write(b)
	if err == nil {
		err = g.rc.Flush()
	}
	if err != nil {
		g.err = err
		return
	}
	g.tr.Chunks = append(g.tr.Chunks, Chunk{At: at, Sent: time.Now(), Kind: kind, Tokens: tokens, Content: content})
}

// done writes data: [DONE], publishing the trace just before.
func (g *gen) done() {
	at := time.Now()
	g.tr.Chunks = append(g.tr.Chunks, Chunk{At: at, Kind: KindDone})
	g.publish(at)
	if _, err := g.w.Write([]byte("data: [DONE]\n\n")); err == nil && g.rc.Flush() == nil {
		g.s.traces.sent(g.tr, time.Now())
	}
}

// cut closes the connection abruptly, without ending the chunked body.
func (g *gen) cut() {
	g.publish(time.Now())
	if conn, _, err := g.rc.Hijack(); err == nil {
		_ = conn.Close()
		return
	}
	panic(http.ErrAbortHandler) // HTTP/2: the server resets the stream
}

func (g *gen) chunk(choice any, u *usage) chunk {
	choices := []any{}
	if choice != nil {
		choices = append(choices, choice)
	}
	return chunk{ID: g.id, Object: g.ep.chunkObject, Created: g.created, Model: g.s.o.Model, Choices: choices, Usage: u}
}

func (g *gen) contentChoice(text string, finish *string) any {
	if g.ep.chat {
		return chatChunkChoice{Delta: delta{Content: &text}, FinishReason: finish}
	}
	return textChunkChoice{Text: text, FinishReason: finish}
}

func (g *gen) finishChoice(reason string) any {
	if g.ep.chat {
		return chatChunkChoice{FinishReason: &reason}
	}
	return textChunkChoice{FinishReason: &reason}
}

func (g *gen) usageOf(completion int) usage {
	p := g.tr.PromptTokens
	return usage{PromptTokens: p, CompletionTokens: completion, TotalTokens: p + completion,
		PromptTokensDetails: tokenDetails{CachedTokens: g.tr.CachedTokens}}
}

// usageAt is the per-chunk usage: cumulative with continuous_usage_stats,
// else null.
func (g *gen) usageAt(completion int) *usage {
	if !g.contUse {
		return nil
	}
	u := g.usageOf(completion)
	return &u
}
