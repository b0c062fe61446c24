package mockvllm

import (
	"encoding/json"
	"net/http"
	"time"
)

// respond serves a non-streaming request: it runs the same engine
// simulation and sends one JSON body at the end. Mid-stream faults map to
// their nearest plain-HTTP form (stream_error: 500 after generation,
// disconnect: connection closed instead of a body, malformed: truncated
// JSON, stall_mid: hang while holding the slot).
func (g *gen) respond() {
	steps, fired := 0, false
	reason := g.s.eng.run(g.ctx, g.req, g.reason, func(_ int, _ time.Time, final string) string {
		steps++
		switch {
		case g.fault == FaultStallMid && g.midFault(steps, final, &fired):
			g.wait()
			return "abort"
		case final == "":
			return ""
		case g.fault == FaultDisconnect:
			return "abort"
		case g.fault == FaultStreamError:
			return "error"
		}
		return ""
	})
	g.s.eng.snapshot(g.req, g.tr)
	g.tr.FinishReason = reason
	switch {
	case g.ctx.Err() != nil:
		g.publish(time.Now())
	case g.fault == FaultDisconnect:
		g.cut()
	case reason == "error":
		g.fail(http.StatusInternalServerError, "InternalServerError", "internal error during generation (injected)")
	case reason == "abort":
		g.fail(http.StatusServiceUnavailable, "ServiceUnavailableError", "request aborted")
	default:
		g.tr.Status = http.StatusOK
		g.sendJSON(http.StatusOK, g.completion(reason), g.tr.CompletionTokens)
	}
}

func (g *gen) completion(reason string) completion {
	n := g.tr.CompletionTokens
	text := tokenText(0, n)
	var choice any = textChoice{Text: text, FinishReason: reason}
	if g.ep.chat {
		choice = chatChoice{Message: chatMessageOut{Role: "assistant", Content: text, ToolCalls: []any{}}, FinishReason: reason}
	}
	return completion{ID: g.id, Object: g.ep.object, Created: g.created, Model: g.s.o.Model,
		Choices: []any{choice}, Usage: g.usageOf(n)}
}

// sendJSON writes a whole JSON body as the response's only write.
func (g *gen) sendJSON(status int, v any, tokens int) {
	b, _ := json.Marshal(v)
	if g.fault == FaultMalformed && status == http.StatusOK {
		b = b[:len(b)/2]
	}
	g.w.Header().Set("Content-Type", "application/json")
	at := time.Now()
	g.tr.HeadersWritten = at
	g.tr.Chunks = append(g.tr.Chunks, Chunk{At: at, Kind: KindBody, Tokens: tokens, Content: tokens > 0})
	g.publish(at)
	g.w.WriteHeader(status)
	_, _ = g.w.Write(b)
}
