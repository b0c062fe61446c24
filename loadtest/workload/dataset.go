package workload

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"strings"

	"github.com/llm-prober/llm-prober/internal/safefile"
	"github.com/llm-prober/llm-prober/prompt"
)

// Dataset is a workload of fixed prompts (ShareGPT or JSONL), shuffled by
// the seed and cycled when a run needs more requests than it holds.
type Dataset struct {
	Name  string
	Items []Item
}

// Item returns entry i modulo the dataset's length.
func (d *Dataset) Item(i int) Item { return d.Items[i%len(d.Items)] }

// Describe names the workload.
func (d *Dataset) Describe() string {
	return fmt.Sprintf("%s (%d prompts)", d.Name, len(d.Items))
}

// counter sizes text in tokens: the server's tokenizer when there is one,
// else words times the calibrated ratio.
type counter struct {
	tk *prompt.Tokenizer
	z  *Sizing
}

func (c counter) count(ctx context.Context, text string) (int, error) {
	if c.tk != nil {
		n, err := c.tk.Count(ctx, prompt.Input{Text: text})
		if c.z != nil {
			n -= c.z.Overhead
		}
		return max(n, 0), err
	}
	words := len(strings.Fields(text))
	if c.z == nil || c.z.TokensPerWord <= 0 {
		return words, nil
	}
	return int(float64(words)*c.z.TokensPerWord + 0.5), nil
}

// DatasetOptions select and size dataset entries.
type DatasetOptions struct {
	Seed int64
	// Want is how many distinct entries to keep (0: all).
	Want int
	// OutputTokens overrides every entry's output length when > 0.
	OutputTokens int
	Tok          *prompt.Tokenizer
	Sizing       *Sizing
}

// LoadShareGPT reads a ShareGPT JSON file ([{"conversations":[{"from":
// "human","value":...},{"from":"gpt","value":...}]}]) like vllm bench
// serve: first human turn as the prompt, the reply's length as the output
// length, entries shorter than 4 tokens or longer than 1,024 (prompt) /
// 2,048 (prompt + output) tokens skipped.
func LoadShareGPT(ctx context.Context, path string, o DatasetOptions) (*Dataset, error) {
	entries, err := readShareGPT(path, o.Seed)
	if err != nil {
		return nil, err
	}
	c := counter{o.Tok, o.Sizing}
	d := &Dataset{Name: "ShareGPT " + path}
	for _, e := range entries {
		if o.Want > 0 && len(d.Items) >= o.Want {
			break
		}
		if len(e.Conversations) < 2 {
			continue
		}
		prompt, reply := e.Conversations[0].Value, e.Conversations[1].Value
		pn, err := c.count(ctx, prompt)
		if err != nil {
			return nil, err
		}
		on := o.OutputTokens
		if on <= 0 {
			if on, err = c.count(ctx, reply); err != nil {
				return nil, err
			}
		}
		if pn < 4 || on < 4 || pn > 1024 || pn+on > 2048 {
			continue
		}
		d.Items = append(d.Items, Item{Prompt: prompt, PromptTokens: pn, OutputTokens: on})
	}
	if len(d.Items) == 0 {
		return nil, fmt.Errorf("%s: no usable conversations", path)
	}
	return d, nil
}

// shareGPTEntry is one conversation of a ShareGPT file.
type shareGPTEntry struct {
	Conversations []struct {
		From  string `json:"from"`
		Value string `json:"value"`
	} `json:"conversations"`
}

// readShareGPT reads a ShareGPT file's conversations, shuffled by seed.
func readShareGPT(path string, seed int64) ([]shareGPTEntry, error) {
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	entries, err := decodeShareGPT(f)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	rng := rand.New(rand.NewPCG(uint64(seed), 0x73686172))
	rng.Shuffle(len(entries), func(i, j int) { entries[i], entries[j] = entries[j], entries[i] })
	return entries, nil
}

// LoadJSONL reads one JSON object a line: {"prompt": "...", and the
// output length as "output_tokens" (or "output_len", "max_tokens")}. An
// entry's prompt length is counted like a ShareGPT one.
func LoadJSONL(ctx context.Context, path string, o DatasetOptions) (*Dataset, error) {
	f, err := safefile.Open(path, math.MaxInt64)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return readJSONL(ctx, f, path, o)
}

func readJSONL(ctx context.Context, r io.Reader, name string, o DatasetOptions) (*Dataset, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, min(64<<10, maxDatasetElement)), maxDatasetElement)
	var items []Item
	line, kept := 0, 0
	c := counter{o.Tok, o.Sizing}
	for sc.Scan() {
		line++
		if len(items) >= maxDatasetEntries {
			return nil, fmt.Errorf("%s:%d: more than %d prompts: a dataset may hold at most that many", name, line, maxDatasetEntries)
		}
		text := strings.TrimSpace(sc.Text())
		if text == "" {
			continue
		}
		var e struct {
			Prompt       string `json:"prompt"`
			OutputTokens int    `json:"output_tokens"`
			OutputLen    int    `json:"output_len"`
			MaxTokens    int    `json:"max_tokens"`
		}
		if err := json.Unmarshal([]byte(text), &e); err != nil {
			return nil, fmt.Errorf("%s:%d: %w", name, line, err)
		}
		if e.Prompt == "" {
			return nil, fmt.Errorf("%s:%d: no \"prompt\"", name, line)
		}
		out := max(e.OutputTokens, e.OutputLen, e.MaxTokens)
		if o.OutputTokens > 0 {
			out = o.OutputTokens
		}
		if out <= 0 {
			return nil, fmt.Errorf("%s:%d: no output length (\"output_tokens\") and no --output-tokens", name, line)
		}
		if kept += len(e.Prompt); kept > maxDatasetText {
			return nil, fmt.Errorf("%s:%d: more than %d MiB of prompts: a dataset may hold at most that much", name, line, maxDatasetText>>20)
		}
		items = append(items, Item{Prompt: e.Prompt, OutputTokens: out})
	}
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return nil, fmt.Errorf("%s:%d: a line longer than %d bytes", name, line+1, maxDatasetElement)
		}
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	if len(items) == 0 {
		return nil, fmt.Errorf("%s: no prompts", name)
	}
	rng := rand.New(rand.NewPCG(uint64(o.Seed), 0x6a736f6e6c))
	rng.Shuffle(len(items), func(i, j int) { items[i], items[j] = items[j], items[i] })
	if o.Want > 0 && len(items) > o.Want {
		items = items[:o.Want]
	}
	for i := range items {
		n, err := c.count(ctx, items[i].Prompt)
		if err != nil {
			return nil, err
		}
		items[i].PromptTokens = n
	}
	return &Dataset{Name: "JSONL " + name, Items: items}, nil
}
