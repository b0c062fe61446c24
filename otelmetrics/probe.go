package otelmetrics

import (
	"net/url"
	"strconv"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// Operation is gen_ai.operation.name for an API: chat, else text_completion.
func Operation(api config.API) string {
	if api == config.APICompletions {
		return OperationTextCompletion
	}
	return OperationChat
}

// Provider is gen_ai.provider.name for a backend: its name, or
// ProviderUnknown when it is left to detection.
func Provider(b string) string {
	if b == "" || b == backend.Auto {
		return ProviderUnknown
	}
	return b
}

// Server is server.address and server.port of a base URL, the port
// implied by the scheme when the URL has none.
func Server(base string) (string, int) {
	u, err := url.Parse(base)
	if err != nil || u.Host == "" {
		return "", 0
	}
	port, _ := strconv.Atoi(u.Port())
	if port == 0 {
		port = 80
		if u.Scheme == "https" {
			port = 443
		}
	}
	return u.Hostname(), port
}

// Endpoint is what a request's attributes say about where it went.
type Endpoint struct {
	Operation, Provider, Model, Address string
	Port                                int
	Target, Module                      string
}

// FromResult is the Request of a finished probe or bench request; took is
// how long a failed one ran (a success runs its E2EL).
func FromResult(e Endpoint, r *prober.Result, took time.Duration) *Request {
	q := &Request{Operation: e.Operation, Provider: e.Provider, Model: e.Model, Address: e.Address, Port: e.Port,
		Target: e.Target, Module: e.Module, Duration: max(took, 0), TTFC: r.TTFT, HasTTFC: r.HasTTFT, Chunks: r.ITL}
	if r.Success() {
		q.Duration = r.E2EL
		q.OutputTokens, q.HasOutput = r.OutputTokens, true
		q.InputTokens, q.HasInput = r.PromptTokens, r.UsageReported
	} else {
		q.Error = string(r.Reason)
	}
	if q.Model == "" {
		q.Model = r.Model
	}
	return q
}
