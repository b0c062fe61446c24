package workload

import (
	"context"
	"fmt"
	"math"

	"github.com/llm-prober/llm-prober/prompt"
)

// Sizing turns token counts into words of Vocab for the server's
// tokenizer, and says how it knows.
type Sizing struct {
	// Method is "tokenize" (exact: the server's tokenizer counted), "usage"
	// (calibrated from usage.prompt_tokens) or "assumed" (one token a word).
	Method        string
	TokensPerWord float64
	Vocab         []string
	// Overhead is what the server adds to a prompt (BOS; for chat, the
	// template when calibrated from chat usage), not part of a planned
	// prompt length.
	Overhead int
	// Template is what a chat request's template adds on top of Overhead
	// where /tokenize of plain text did not count it (MeasureTemplate);
	// TemplateSource says how it was counted, or why not.
	Template       int
	TemplateSource string
	// Checked prompts were re-counted after sizing; MaxError is the largest
	// difference seen, in tokens.
	Checked, MaxError int
	// Dataset is set when the prompts came from a file: each was counted
	// (by the tokenizer, or from words with the calibrated ratio).
	Dataset bool
	// Dialect is the /tokenize body the server answered (Method tokenize).
	Dialect prompt.Dialect
	// Context is the server's context size in tokens (0: unknown), read
	// from ContextSource.
	Context       int
	ContextSource string
}

// words is how many vocabulary words make tokens tokens; nil-safe.
func (z *Sizing) words(tokens int) int {
	if z == nil || z.TokensPerWord <= 0 {
		return max(tokens, 1)
	}
	return max(int(math.Round(float64(tokens)/z.TokensPerWord)), 1)
}

// Describe says how prompt lengths were made, and the server's context
// where known, for the report.
func (z *Sizing) Describe() string {
	if z == nil {
		return "prompt lengths assumed at 1 token per word"
	}
	d := z.describe()
	if z.TemplateSource != "" {
		d += fmt.Sprintf("; chat template %d tokens (%s)", z.Template, z.TemplateSource)
	}
	if z.Context > 0 {
		d += fmt.Sprintf("; server context %d tokens (%s)", z.Context, z.ContextSource)
	}
	return d
}

func (z *Sizing) describe() string {
	switch {
	case z.Dataset && z.Method == "tokenize":
		return "prompt lengths exact: every dataset prompt counted by the server's tokenize endpoint"
	case z.Dataset && z.Method == "usage":
		return fmt.Sprintf("prompt lengths estimated from words at %.3f tokens per word (calibrated from usage.prompt_tokens)", z.TokensPerWord)
	}
	switch z.Method {
	case "tokenize":
		return fmt.Sprintf("prompt lengths exact via the server's tokenize endpoint (%s body; %d-word vocabulary of single tokens; %d prompts re-counted, max error %d tokens)",
			z.Dialect, len(z.Vocab), z.Checked, z.MaxError)
	case "usage":
		return fmt.Sprintf("prompt lengths calibrated from usage.prompt_tokens: %.3f tokens per word, %d tokens of overhead", z.TokensPerWord, z.Overhead)
	}
	return "prompt lengths assumed at 1 token per word (no tokenize endpoint, no usage reported)"
}

// SizeWithTokenizer sizes prompts exactly with the server's tokenizer:
// a vocabulary of the words it counts as one token, and its overhead.
func SizeWithTokenizer(ctx context.Context, tk *prompt.Tokenizer) (*Sizing, error) {
	vocab, overhead, err := tk.SingleTokenWords(ctx)
	if err != nil {
		return nil, err
	}
	return &Sizing{Method: "tokenize", TokensPerWord: 1, Overhead: overhead, Vocab: vocab, Dialect: tk.Dialect()}, nil
}

// Check re-counts the first n prompts of w and records the largest error.
func (z *Sizing) Check(ctx context.Context, tk *prompt.Tokenizer, w Workload, n int) error {
	for i := range n {
		it := w.Item(i)
		if it.PromptTokens <= 0 {
			continue
		}
		c, err := tk.Count(ctx, prompt.Input{Text: it.Prompt})
		if err != nil {
			return err
		}
		z.Checked++
		z.MaxError = max(z.MaxError, int(math.Abs(float64(c-z.Overhead-it.PromptTokens))))
	}
	return nil
}
