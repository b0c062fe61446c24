package prober

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"mime"
	"net/http"
	"net/http/httptrace"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober/rxstamp"
	"github.com/llm-prober/llm-prober/prober/stream"
	"github.com/llm-prober/llm-prober/prober/tracectx"
)

// Run sends one streaming request and measures it. It never panics on
// server input and always returns within the context's deadline (plus the
// time to close the connection).
func Run(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, id, userAgent string) *Result {
	return RunWithOptions(ctx, client, t, m, id, userAgent, RunOptions{})
}

// RunWithOptions is Run with optional per-probe settings (a trace logger).
func RunWithOptions(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, id, userAgent string, o RunOptions) *Result {
	if planned(m) && inputFrom(ctx) == nil {
		return runPlanned(ctx, client, t, m, id, userAgent, o) // cache modes, prompt_tokens (cache.go)
	}
	r := &Result{ID: id, Trace: NewTraceContext(id), Target: t.Name, Model: t.Model, Module: m.Name, trace: o.Trace, close: o.CloseConnection}
	err := run(ctx, client, t, m, id, userAgent, r)
	if err != nil {
		r.Reason = reasonOf(ctx, err)
		if r.Reason == reasonTimeout {
			r.Reason = r.timeoutPhase()
			err = fmt.Errorf("timeout %s: %w", r.Reason.TimeoutPhase(), err)
		}
		r.Err = err
		r.tracef("probe failed", "reason", r.Reason, "err", err)
		return r
	}
	Evaluate(r, m)
	r.traceEnd()
	return r
}

func run(ctx context.Context, client *http.Client, t *config.Target, m *config.Module, id, userAgent string, r *Result) error {
	ct := &httptrace.ClientTrace{GotConn: func(info httptrace.GotConnInfo) {
		r.conn, r.connected = nil, true
		// An HTTP/2 connection carries other streams too: its latest read
		// says nothing about this one's chunks, nor its bytes about this
		// one's headers.
		if tc, ok := info.Conn.(interface{ ConnectionState() tls.ConnectionState }); ok &&
			tc.ConnectionState().NegotiatedProtocol == "h2" {
			return
		}
		r.conn = rxstamp.ConnFor(info.Conn)
		r.conn.ArmHeaders()
	}}
	phases := &tracectx.Recorder{}
	phases.Hooks(ct)
	defer func() { r.Phases = phases.Close() }()
	ctx = httptrace.WithClientTrace(ctx, ct)
	req, err := newRequest(ctx, t, m, id, userAgent)
	if err != nil {
		return fail(ReasonOther, err)
	}
	req.Close = r.close
	tracectx.SetHeader(req.Header, r.Trace)
	r.tracef("sending request", "url", t.RedactedURL()+endpointPath(m.API), "model", t.Model, "probe_id", id)
	r.Start = time.Now()
	resp, err := client.Do(req)
	r.conn.HeadersRead()
	if err != nil {
		return redactURLError(err, t.RedactedURL()+endpointPath(m.API))
	}
	defer resp.Body.Close()
	r.Headers = r.elapsed()
	r.HTTPStatus = resp.StatusCode
	r.tracef("received response headers", "status", resp.StatusCode, "content_type", resp.Header.Get("Content-Type"),
		"content_encoding", resp.Header.Get("Content-Encoding"), "elapsed", r.Headers)
	if err := decodeBody(resp); err != nil {
		return err
	}
	if err := checkResponse(resp); err != nil {
		// The rest of a (small) error body: reading it keeps the
		// connection reusable for the next probe.
		_, _ = io.CopyN(io.Discard, resp.Body, 64<<10)
		return err
	}
	r.KernelTimes = r.conn != nil
	if err := readStream(resp.Body, r); err != nil {
		return err
	}
	// Reading what follows [DONE] (usually just the chunked-encoding
	// trailer) lets the transport reuse the connection.
	_, _ = io.CopyN(io.Discard, resp.Body, 4<<10)
	return nil
}

// checkResponse classifies a response that did not start a stream.
func checkResponse(resp *http.Response) error {
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		msg := bodySnippet(resp.Body)
		err := fmt.Errorf("HTTP %d: %s", resp.StatusCode, msg)
		switch {
		case resp.StatusCode == http.StatusTooManyRequests:
			if ra := resp.Header.Get("Retry-After"); ra != "" {
				err = fmt.Errorf("HTTP 429 (Retry-After %s): %s", ra, msg)
			}
			return fail(ReasonRateLimited, err)
		case resp.StatusCode >= 500:
			return fail(ReasonHTTP5xx, err)
		case resp.StatusCode >= 400:
			return fail(ReasonHTTP4xx, err)
		case resp.StatusCode >= 300:
			// Not followed: another server answering would not be this
			// target's health, and must not receive its credentials.
			return fail(ReasonRedirect, fmt.Errorf("HTTP %d redirect to %q not followed (set the target's URL to where it points): %s",
				resp.StatusCode, truncate(resp.Header.Get("Location"), 256), msg))
		default: // 1xx
			return fail(ReasonOther, err)
		}
	}
	mt, _, _ := mime.ParseMediaType(resp.Header.Get("Content-Type"))
	if mt != "text/event-stream" {
		return fail(ReasonNotEventStream, fmt.Errorf("content type %q is not text/event-stream: %s",
			resp.Header.Get("Content-Type"), bodySnippet(resp.Body)))
	}
	return nil
}

// bodySnippet reads a bounded prefix of an error body for the message.
func bodySnippet(body io.Reader) string {
	b, _ := io.ReadAll(io.LimitReader(body, 4096))
	s := strings.TrimSpace(string(b))
	if s == "" {
		return "(empty body)"
	}
	if msg := extractErrorField(s); msg != "" {
		return msg
	}
	return truncate(s, 256)
}

// readStream consumes the SSE body and fills in the measurements.
func readStream(body io.Reader, r *Result) error {
	var (
		sse       = stream.NewReader(body)
		output    strings.Builder
		sawDone   bool
		sawFinish bool
		last      *stream.Usage
		events    int
		prev      time.Duration // arrival of the previous content chunk
	)
	var now time.Duration
	for {
		data, err := sse.Next()
		// Never earlier than the previous reading, whichever clock said so.
		now = max(r.elapsed(), now)
		if err != nil {
			if errors.Is(err, stream.ErrLineTooLong) {
				return errLineTooLong
			}
			if events == 0 && sse.Foreign() != "" {
				return fail(ReasonMalformedChunk, fmt.Errorf("body is not Server-Sent Events, though sent as text/event-stream: %q", sse.Foreign()))
			}
			if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
				r.E2EL = now
				break
			}
			// A read error after headers is a connection cut (reset, or
			// a deadline which reasonOf turns into timeout).
			return fail(ReasonStreamBroken, fmt.Errorf("reading stream: %w", err))
		}
		events++
		if string(data) == "[DONE]" {
			sawDone = true
			r.E2EL = now
			break
		}
		p, err := stream.Parse(data)
		if err != nil {
			return streamFailure(err)
		}
		if p.Finish != "" {
			sawFinish = true
			r.FinishReason = p.Finish
		}
		if p.Usage != nil {
			last = p.Usage
		}
		if !p.Generated {
			continue
		}
		// ITL as vllm bench serve and vLLM's own histogram define it: one
		// gap per content chunk, however many tokens the chunk holds
		// (speculative decoding, --stream-interval); per-token speed is TPOT.
		switch r.ContentChunks {
		case 0:
			r.TTFT, r.HasTTFT = now, true
			r.tracef("first token", "elapsed", now)
		case MaxContentChunks:
			return errTooManyChunks
		default:
			r.ITL = append(r.ITL, now-prev)
			r.MaxITL = max(r.MaxITL, now-prev)
		}
		prev, r.LastChunk = now, now
		r.ContentChunks++
		if output.Len() < MaxOutputBytes {
			output.WriteString(p.Content)
		}
	}
	r.Output = truncateBytes(output.String(), MaxOutputBytes)
	if err := last.Check(); err != nil {
		err = streamFailure(err)
		return err // before the counts go into r: they never reach a counter
	}
	if last != nil && last.CompletionTokens > 0 {
		r.UsageReported = true
		r.OutputTokens = last.CompletionTokens
		r.PromptTokens = last.PromptTokens
		r.CachedTokens = last.CachedTokens()
	} else {
		r.OutputTokens = r.ContentChunks // counted, as vllm bench does without usage
		if last != nil {
			r.PromptTokens = last.PromptTokens
			r.CachedTokens = last.CachedTokens()
		}
	}
	if !sawDone && !sawFinish {
		return fail(ReasonStreamBroken, fmt.Errorf("stream ended after %d content chunks without [DONE] or finish_reason", r.ContentChunks))
	}
	if r.ContentChunks == 0 {
		return fail(ReasonEmptyOutput, fmt.Errorf("stream completed (finish_reason %q) without generated content", r.FinishReason))
	}
	r.TPOT = timePerOutputToken(r.E2EL, r.TTFT, r.OutputTokens)
	return nil
}

func truncateBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n]
}
