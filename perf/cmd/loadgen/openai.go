package main

import (
	"context"
	"fmt"
	"math"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/openai/openai-go/v3"
	"github.com/openai/openai-go/v3/option"
)

// runOpenAI drives openai-go as a Go user would write a load generator:
// the same Poisson schedule (or closed loop), one goroutine per request,
// chunk times read with time.Now() as the stream iterator yields them.
func runOpenAI(o opts, url string) *result {
	oc := openai.NewClient(option.WithBaseURL(url+"/v1"), option.WithAPIKey("x"), option.WithMaxRetries(0))
	prompt := strings.TrimSpace(strings.Repeat("the ", o.prompt))
	var (
		mu    sync.Mutex
		r     = &result{}
		reads []reading
		wg    sync.WaitGroup
		cur   atomic.Int64
	)
	one := func(i int, planned time.Time) {
		defer wg.Done()
		id := "oa-" + strconv.Itoa(i)
		params := openai.ChatCompletionNewParams{Model: "mock-model",
			Messages:  []openai.ChatCompletionMessageParamUnion{openai.UserMessage(prompt)},
			MaxTokens: openai.Int(int64(o.tokens))}
		n := cur.Add(1)
		start := time.Now()
		s := oc.Chat.Completions.NewStreaming(context.Background(), params,
			option.WithHeader("X-Request-Id", id), option.WithJSONSet("ignore_eos", true), option.WithJSONSet("min_tokens", o.tokens))
		var first, last time.Time
		var itl []time.Duration
		chunks := 0
		for s.Next() {
			if c := s.Current(); len(c.Choices) > 0 && c.Choices[0].Delta.Content != "" {
				now := time.Now()
				if chunks == 0 {
					first = now
				} else {
					itl = append(itl, now.Sub(last))
				}
				last = now
				chunks++
			}
		}
		err := s.Err()
		s.Close()
		cur.Add(-1)
		mu.Lock()
		defer mu.Unlock()
		r.peak = max(r.peak, int(n))
		if !planned.IsZero() {
			r.lag = append(r.lag, start.Sub(planned))
		}
		if err != nil || chunks == 0 {
			r.failed++
			if r.failed <= 3 {
				fmt.Printf("openai-go: %v\n", err)
			}
			return
		}
		r.ok++
		r.tokens += chunks * o.perChunk
		if o.fidelity {
			reads = append(reads, reading{id: id, start: start, ttft: first.Sub(start), itl: itl})
		}
	}
	t0 := time.Now()
	if o.rate > 0 && !math.IsInf(o.rate, 1) {
		for i, at := range poissonSchedule(o.rate, o.n) {
			planned := t0.Add(at)
			time.Sleep(time.Until(planned))
			wg.Add(1)
			go one(i, planned)
		}
	} else {
		var next atomic.Int64
		users := max(o.concurrency, 1)
		for range users {
			wg.Add(1)
			go func() {
				defer wg.Done()
				for {
					i := int(next.Add(1) - 1)
					if i >= o.n {
						return
					}
					wg.Add(1)
					one(i, time.Time{})
				}
			}()
		}
	}
	wg.Wait()
	r.dur = time.Since(t0)
	if o.fidelity {
		r.ttftErr, r.itlErr = fidelity(url, reads)
	}
	return r
}
