package summary

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
	"github.com/llm-prober/llm-prober/loadtest"
	"github.com/llm-prober/llm-prober/loadtest/internal/runkit"
	"github.com/llm-prober/llm-prober/loadtest/workload"
)

// ShareGPT conversations keep every human→gpt turn, in order.
func TestLoadConversations(t *testing.T) {
	p := filepath.Join(t.TempDir(), "sg.json")
	body := `[{"conversations": [{"from": "human", "value": "one two three four"}, {"from": "gpt", "value": "a b c d e"},
	{"from": "human", "value": "five six"}, {"from": "gpt", "value": "f g h"}, {"from": "human", "value": "dangling"}]},
	{"conversations": [{"from": "gpt", "value": "no human first"}]}]`
	if err := os.WriteFile(p, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	c, err := workload.LoadConversations(t.Context(), p, time.Second, workload.DatasetOptions{Seed: 1})
	if err != nil {
		t.Fatal(err)
	}
	if len(c.Fixed) != 1 || len(c.Session(0)) != 2 || c.Requests(3) != 6 {
		t.Fatalf("sessions %+v", c.Fixed)
	}
	if tr := c.Session(0)[1]; tr.User != "five six" || tr.UserTokens != 2 || tr.OutputTokens != 3 {
		t.Errorf("turn 2: %+v", tr)
	}
	if err := os.WriteFile(p, []byte(`[{"conversations": [{"from": "gpt", "value": "x"}]}]`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := workload.LoadConversations(t.Context(), p, 0, workload.DatasetOptions{}); err == nil || !strings.Contains(err.Error(), "no usable conversations") {
		t.Errorf("no human turn: %v", err)
	}
}

// A multi-turn run is chat, open loop, counted: the rest is refused.
func TestSessionsRefused(t *testing.T) {
	_, tg, client := mocktarget.Start(t, mocktarget.FixedMock())
	conv := &workload.Conversations{Syn: workload.NewSynthetic(8, 2, 0, 0, 1, nil), Turns: 2}
	for _, c := range []struct {
		edit func(o *loadtest.Options)
		want string
	}{
		{func(o *loadtest.Options) { o.API = config.APICompletions }, "--api chat"},
		{func(o *loadtest.Options) { o.Concurrency = 2 }, "drop --concurrency"},
		{func(o *loadtest.Options) { o.Duration, o.NumPrompts, o.MaxConcurrency = time.Second, 0, 2 }, "not a duration"},
		{func(o *loadtest.Options) {
			o.Workload = &workload.Conversations{Syn: workload.NewSynthetic(8, 2, 0, 0, 1, nil)}
		}, "at least one turn"},
	} {
		o := runkit.BaseOptions(tg, client, 0, 0)
		o.Workload, o.Rate, o.NumPrompts = conv, math.Inf(1), 2
		c.edit(&o)
		if _, err := loadtest.Execute(t.Context(), o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v, want %q", err, c.want)
		}
	}
}
