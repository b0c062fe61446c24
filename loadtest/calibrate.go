package loadtest

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
)

// SizeFromUsage calibrates tokens per word without a tokenize endpoint:
// two one-token requests whose prompts differ only in length, and the
// difference of their usage.prompt_tokens. Servers that report no usage
// get the one-token-a-word assumption.
func SizeFromUsage(ctx context.Context, client *http.Client, t *config.Target, api config.API) (*Sizing, error) {
	const short, long = 64, 576
	counts := [2]int{}
	for i, n := range []int{short, long} {
		words := make([]string, n)
		for j := range words {
			words[j] = defaultVocab[(j*7+i)%len(defaultVocab)]
		}
		m := &config.Module{API: api, Name: "bench-calibrate", MaxTokens: 1}
		text := strings.Join(words, " ")
		if api == config.APICompletions {
			m.Prompt = text
		} else {
			m.Messages = []config.Message{{Role: "user", Content: text}}
		}
		rctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
		res := prober.Run(rctx, client, t, m, fmt.Sprintf("bench-calibrate-%d", i), "")
		cancel()
		if !res.Success() {
			return nil, fmt.Errorf("calibration request failed (%s): %v", res.Reason, res.Err)
		}
		counts[i] = res.PromptTokens
	}
	if counts[0] <= 0 || counts[1] <= counts[0] {
		return &Sizing{Method: "assumed", TokensPerWord: 1}, nil
	}
	tpw := float64(counts[1]-counts[0]) / (long - short)
	return &Sizing{Method: "usage", TokensPerWord: tpw, Overhead: counts[0] - int(tpw*short+0.5)}, nil
}
