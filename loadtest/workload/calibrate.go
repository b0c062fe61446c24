package workload

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
	"github.com/llm-prober/llm-prober/prompt"
)

// SizeFromUsage calibrates tokens per word without a tokenize endpoint:
// two one-token requests whose prompts, sized for inputTokens-token
// prompts (prompt.CalibrationWords), differ only in length, and the
// difference of their usage.prompt_tokens. Each waits at most timeout
// (the run's --timeout). Servers that report no usage get the
// one-token-a-word assumption.
func SizeFromUsage(ctx context.Context, client *http.Client, t *config.Target, api config.API, inputTokens int, timeout time.Duration) (*Sizing, error) {
	short, long := prompt.CalibrationWords(inputTokens)
	texts := [2]string{short, long}
	counts := [2]int{}
	for i, text := range texts {
		m := &config.Module{API: api, Name: "bench-calibrate", MaxTokens: 1}
		if api == config.APICompletions {
			m.Prompt = text
		} else {
			m.Messages = []config.Message{{Role: "user", Content: text}}
		}
		rctx, cancel := context.WithTimeout(ctx, timeout)
		res := prober.Run(rctx, client, t, m, fmt.Sprintf("bench-calibrate-%d", i), "")
		cancel()
		if !res.Success() {
			if errors.Is(ctx.Err(), context.Canceled) {
				return nil, ctx.Err()
			}
			return nil, fmt.Errorf("calibration request of %d words failed (%s): %v", len(strings.Fields(text)), res.Reason, res.Err)
		}
		counts[i] = res.PromptTokens
	}
	c, ok := prompt.FromUsage(len(strings.Fields(short)), counts[0], len(strings.Fields(long)), counts[1])
	if !ok {
		return &Sizing{Method: "assumed", TokensPerWord: 1}, nil
	}
	return &Sizing{Method: "usage", TokensPerWord: c.TokensPerWord, Overhead: c.Overhead}, nil
}
