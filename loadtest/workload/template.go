package workload

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/prompt"
)

// templateProbe is a chat message of four single-token words ("the" is
// one in every tokenizer SingleTokenWords accepts).
const templateProbe = "the the the the"

// MeasureTemplate counts the tokens a chat request's template adds on top
// of z.Overhead, which /tokenize of plain text does not show (llama.cpp
// adds 8 on a typical model): the server's /tokenize of messages where its
// dialect applies the template (vLLM's), else one calibration request's
// usage.prompt_tokens, waiting at most timeout. Without either it is
// unknown (TemplateSource says so) and the context check counts none.
func (z *Sizing) MeasureTemplate(ctx context.Context, tk *prompt.Tokenizer, client *http.Client, t *config.Target, timeout time.Duration) error {
	words := len(strings.Fields(templateProbe))
	if tk != nil && tk.Dialect() == backend.TokenizeVLLM {
		n, err := tk.Count(ctx, prompt.Input{Messages: []config.Message{{Role: "user", Content: templateProbe}}})
		if err == nil {
			z.Template, z.TemplateSource = max(n-words-z.Overhead, 0), "/tokenize of chat messages"
			return nil
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
	}
	m := &config.Module{API: config.APIChat, Name: "bench-template", MaxTokens: 1,
		Messages: []config.Message{{Role: "user", Content: templateProbe}}}
	rctx, cancel := context.WithTimeout(ctx, timeout)
	res := prober.Run(rctx, client, t, m, "bench-template", "")
	cancel()
	switch {
	case ctx.Err() != nil:
		return ctx.Err()
	case !res.Success():
		z.TemplateSource = fmt.Sprintf("unknown: the calibration request failed (%s)", res.Reason)
	case res.PromptTokens <= 0:
		z.TemplateSource = "unknown: the server reports no usage"
	default:
		z.Template, z.TemplateSource = max(res.PromptTokens-words-z.Overhead, 0), "a calibration request's usage.prompt_tokens"
	}
	return nil
}
