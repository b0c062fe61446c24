package workload

import (
	"os"
	"strings"
	"testing"
)

func TestReadJSONL(t *testing.T) {
	in := `{"prompt": "one two three", "output_tokens": 5}
{"prompt": "four five", "output_len": 7}

{"prompt": "six", "max_tokens": 9}
`
	d, err := readJSONL(t.Context(), strings.NewReader(in), "x.jsonl", DatasetOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	got := map[string]Item{}
	for _, it := range d.Items {
		got[it.Prompt] = it
	}
	if got["one two three"].OutputTokens != 5 || got["four five"].OutputTokens != 7 || got["six"].OutputTokens != 9 ||
		got["one two three"].PromptTokens != 3 {
		t.Errorf("items %+v", d.Items)
	}
	if _, err := readJSONL(t.Context(), strings.NewReader(`{"prompt":"x"}`), "y", DatasetOptions{}); err == nil {
		t.Error("an entry without an output length must be refused")
	}
}

// The same seed gives the same prompts; lengths stay in the range.
func TestSyntheticDeterministic(t *testing.T) {
	a, b := NewSynthetic(100, 20, 16, 0.5, 3, nil), NewSynthetic(100, 20, 16, 0.5, 3, nil)
	for i := range 50 {
		x, y := a.Item(i), b.Item(i)
		if x != y {
			t.Fatalf("item %d differs between equal seeds", i)
		}
		words := len(strings.Fields(x.Prompt))
		if words != x.PromptTokens || x.PromptTokens < 16+50 || x.PromptTokens > 16+150 || x.OutputTokens < 10 || x.OutputTokens > 30 {
			t.Fatalf("item %d: %d words, %+v", i, words, x)
		}
		if !strings.HasPrefix(x.Prompt, strings.Join(strings.Fields(a.Item(0).Prompt)[:16], " ")) {
			t.Fatalf("item %d does not start with the shared prefix", i)
		}
	}
	if NewSynthetic(100, 20, 0, 0, 4, nil).Item(0) == a.Item(0) {
		t.Error("another seed gave the same prompt")
	}
}

// ShareGPT: first human turn, reply length as output, vllm bench's filters.
func TestLoadShareGPT(t *testing.T) {
	long := strings.Repeat("w ", 1100)
	data := `[
 {"id": "a", "conversations": [{"from": "human", "value": "one two three four five"}, {"from": "gpt", "value": "a b c d e f"}]},
 {"id": "short", "conversations": [{"from": "human", "value": "hi"}, {"from": "gpt", "value": "a b c d e"}]},
 {"id": "long", "conversations": [{"from": "human", "value": "` + long + `"}, {"from": "gpt", "value": "a b c d"}]},
 {"id": "single", "conversations": [{"from": "human", "value": "alone here now ok"}]}
]`
	path := t.TempDir() + "/sg.json"
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	d, err := LoadShareGPT(t.Context(), path, DatasetOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(d.Items) != 1 || d.Items[0].PromptTokens != 5 || d.Items[0].OutputTokens != 6 || d.Item(7) != d.Items[0] {
		t.Errorf("items %+v", d.Items)
	}
	d, _ = LoadShareGPT(t.Context(), path, DatasetOptions{OutputTokens: 9})
	if d.Items[0].OutputTokens != 9 {
		t.Errorf("--output-tokens did not override: %+v", d.Items[0])
	}
	if _, err := LoadShareGPT(t.Context(), t.TempDir()+"/none.json", DatasetOptions{}); err == nil {
		t.Error("a missing file must fail")
	}
}
