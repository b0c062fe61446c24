package workload

import (
	"math"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil"
)

// Requests share a prompt prefix exactly as far as their leading hash
// ids agree: identical bytes, block by block, a cut block a prefix of
// the whole one.
func TestTracePrefixesShareExactly(t *testing.T) {
	p := testutil.TempFile(t, "t.jsonl", `{"timestamp": 0, "input_length": 40, "output_length": 3, "hash_ids": [7, 8, 9]}
{"timestamp": 5, "input_length": 40, "output_length": 3, "hash_ids": [7, 8, 9]}
{"timestamp": 9, "input_length": 40, "output_length": 3, "hash_ids": [7, 5, 9]}
{"timestamp": 9, "input_length": 36, "output_length": 3, "hash_ids": [7, 8, 9]}
{"timestamp": 12, "input_length": 50, "output_length": 3, "hash_ids": [7]}
`)
	tr, err := LoadTrace(p, TraceOptions{BlockSize: 16, Seed: 3})
	if err != nil {
		t.Fatal(err)
	}
	items := make([]Item, tr.Len())
	words := make([][]string, tr.Len())
	for i := range items {
		items[i] = tr.Item(i)
		words[i] = strings.Fields(items[i].Prompt)
	}
	for i, want := range []int{40, 40, 40, 36, 50} {
		if len(words[i]) != want || items[i].PromptTokens != want || items[i].OutputTokens != 3 {
			t.Errorf("item %d: %d words, planned %d, output %d; want %d", i, len(words[i]), items[i].PromptTokens, items[i].OutputTokens, want)
		}
	}
	if items[0].Prompt != items[1].Prompt {
		t.Error("the same hash ids and length gave different prompts")
	}
	common := func(a, b []string) int {
		n := 0
		for n < min(len(a), len(b)) && a[n] == b[n] {
			n++
		}
		return n
	}
	if n := common(words[0], words[2]); n != 16 {
		t.Errorf("ids [7 8 9] and [7 5 9] share %d words, want exactly block 7's 16", n)
	}
	if !strings.HasPrefix(items[0].Prompt, items[3].Prompt) {
		t.Error("a shorter input cut the last block differently")
	}
	if n := common(words[0], words[4]); n != 16 {
		t.Errorf("[7] then the request's own words shares %d words with [7 8 9], want 16", n)
	}
	if w := tr.Describe(); !strings.Contains(w, "5 requests over 0.0 s") || !strings.Contains(w, "16-token blocks") {
		t.Errorf("Describe = %q", w)
	}
	other, err := LoadTrace(p, TraceOptions{BlockSize: 16, Seed: 4})
	if err != nil {
		t.Fatal(err)
	}
	if other.Item(0).Prompt == items[0].Prompt {
		t.Error("another seed (--fresh-prompts) gave the same blocks")
	}
}

// Hostile traces fail with the file and line, never a panic or a
// billion-token prompt.
func TestTraceHostile(t *testing.T) {
	long := `{"timestamp": 1, "input_length": 4, "output_length": 2, "hash_ids": [` + strings.Repeat("1,", maxTraceLine/2) + `1]}`
	for _, c := range []struct{ name, body, want string }{
		{"empty.jsonl", "", "empty.jsonl: no requests"},
		{"blank.jsonl", "\n\n  \n", "blank.jsonl: no requests"},
		{"order.jsonl", `{"timestamp": 10, "input_length": 4, "output_length": 2}` + "\n\n" + `{"timestamp": 5, "input_length": 4, "output_length": 2}`, "order.jsonl:3: timestamp 5 is before the previous request's 10"},
		{"missing.jsonl", `{"timestamp": 10, "output_length": 2}`, `missing.jsonl:1: no "input_length"`},
		{"neg.jsonl", `{"timestamp": 10, "input_length": -4, "output_length": 2}`, "neg.jsonl:1: input length -4"},
		{"zero.jsonl", `{"timestamp": 10, "input_length": 4, "output_length": 0}`, "zero.jsonl:1: input length 4 and output length 0"},
		{"huge.jsonl", `{"timestamp": 10, "input_length": 1000000000000, "output_length": 2}`, "must be in [1, 4194304]"},
		{"json.jsonl", `{"timestamp": "soon"}`, "json.jsonl:1: not a trace entry"},
		{"long.jsonl", `{"timestamp": 0, "input_length": 4, "output_length": 2}` + "\n" + long, "long.jsonl:2: a line longer than 1048576 bytes"},
		{"cols.csv", "Timestamp,Model,Request tokens\n1,a,2\n", `cols.csv:1: no "Response tokens" column`},
		{"negcsv.csv", "Timestamp,Model,Request tokens,Response tokens\n1,a,2,3\n2,a,-2,3\n", "negcsv.csv:3: negative token counts"},
		{"fields.csv", "Timestamp,Model,Request tokens,Response tokens\n1,a,2\n", "fields.csv:2: 3 fields, the header has 4"},
		{"ts.csv", "Timestamp,Model,Request tokens,Response tokens\nnow,a,2,3\n", `ts.csv:2: the Timestamp "now" is not a number`},
		{"onlyfailed.csv", "Timestamp,Model,Request tokens,Response tokens\n1,a,2,0\n", "onlyfailed.csv: no requests"},
	} {
		_, err := LoadTrace(testutil.TempFile(t, c.name, c.body), TraceOptions{})
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want %q", c.name, err, c.want)
		}
	}
	p := testutil.TempFile(t, "ok.jsonl", `{"timestamp": 0, "input_length": 4, "output_length": 2}`)
	for _, o := range []TraceOptions{{Scale: -1}, {Scale: math.NaN()}, {Scale: math.Inf(1)}, {BlockSize: -3}} {
		if _, err := LoadTrace(p, o); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

// BurstGPT: seconds, its columns by name, failed rows (0 tokens) skipped
// and counted.
func TestTraceBurstGPT(t *testing.T) {
	p := testutil.TempFile(t, "burst.csv", "Timestamp,Model,Request tokens,Response tokens,Total tokens,Log Type\n"+
		"5,ChatGPT,472,18,490,Conversation log\n"+
		"5.25,GPT-4,1087,0,1087,Conversation log\n"+
		"6.5,ChatGPT,300,40,340,API log\n")
	tr, err := LoadTrace(p, TraceOptions{Scale: 2})
	if err != nil {
		t.Fatal(err)
	}
	if tr.Len() != 2 || tr.Skipped != 1 || tr.At(0) != 0 || tr.At(1) != 3*time.Second {
		t.Fatalf("%d requests (%d skipped), at %v, %v; want 2 (1 skipped) at 0s, 3s", tr.Len(), tr.Skipped, tr.At(0), tr.At(1))
	}
	if it := tr.Item(1); it.PromptTokens != 300 || it.OutputTokens != 40 || len(strings.Fields(it.Prompt)) != 300 {
		t.Errorf("item 1: %d planned, %d output, %d words", it.PromptTokens, it.OutputTokens, len(strings.Fields(it.Prompt)))
	}
}

// A trace recorded on a longer context than the server's is refused,
// naming the first line that does not fit and how many do not.
func TestTraceCheckContext(t *testing.T) {
	p := testutil.TempFile(t, "ctx.jsonl", `{"timestamp": 0, "input_length": 100, "output_length": 20}
{"timestamp": 1, "input_length": 1000, "output_length": 20}

{"timestamp": 2, "input_length": 990, "output_length": 20}
{"timestamp": 3, "input_length": 2000, "output_length": 20}
`)
	tr, err := LoadTrace(p, TraceOptions{})
	if err != nil {
		t.Fatal(err)
	}
	err = tr.CheckContext(1024, 8, "/v1/models max_model_len")
	if err == nil || !strings.Contains(err.Error(), "ctx.jsonl:2: input 1000 + output 20 tokens (and 8 the server adds) exceed the server's context of 1024 tokens (/v1/models max_model_len); 2 of the trace's 4 requests do") {
		t.Errorf("%v", err)
	}
	if err := tr.CheckContext(4096, 8, "x"); err != nil {
		t.Errorf("fits: %v", err)
	}
	if err := tr.CheckContext(0, 8, "unknown"); err != nil {
		t.Errorf("unknown context: %v", err)
	}
}
