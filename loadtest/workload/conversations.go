package workload

import (
	"context"
	"fmt"
	"math/rand/v2"
	"time"
)

// Turn is one user message of a session and the answer length it asks for.
type Turn struct {
	User         string
	UserTokens   int // planned length of the message (0: unknown)
	OutputTokens int
}

// Sessions is a multi-turn workload: session i's turns are sent one after
// the other, each with the history so far (previous user messages and the
// server's actual answers), ThinkTime after the previous answer ended.
// The run's rate and --num-prompts count sessions.
type Sessions interface {
	Workload
	Session(i int) []Turn
	ThinkTime() time.Duration
}

// Conversations is a Sessions workload: ShareGPT conversations (every
// human turn, each gpt answer's length), or synthetic turns.
type Conversations struct {
	Name  string
	Think time.Duration
	// Fixed sessions (ShareGPT), cycled; or, when empty, synthetic ones.
	Fixed [][]Turn
	Syn   *Synthetic
	Turns int // synthetic turns a session
}

// Session returns session i's turns.
func (c *Conversations) Session(i int) []Turn {
	if len(c.Fixed) > 0 {
		return c.Fixed[i%len(c.Fixed)]
	}
	turns := make([]Turn, c.Turns)
	for k := range turns {
		// Item numbers apart per session: turns draw fresh words, so only
		// the history, never chance, is shared.
		it := c.Syn.Item(i*c.Turns + k)
		turns[k] = Turn{User: it.Prompt, UserTokens: it.PromptTokens, OutputTokens: it.OutputTokens}
	}
	return turns
}

// ThinkTime is the pause between an answer and the next turn.
func (c *Conversations) ThinkTime() time.Duration { return c.Think }

// Item is session i's first turn (what prompt sizing checks).
func (c *Conversations) Item(i int) Item {
	t := c.Session(i)[0]
	return Item{Prompt: t.User, PromptTokens: t.UserTokens, OutputTokens: t.OutputTokens}
}

// Describe names the workload.
func (c *Conversations) Describe() string {
	think := fmt.Sprintf(", %v think time", c.Think)
	if len(c.Fixed) > 0 {
		turns := 0
		for _, s := range c.Fixed {
			turns += len(s)
		}
		return fmt.Sprintf("%s (%d sessions, %.1f turns each on average%s)", c.Name, len(c.Fixed), float64(turns)/float64(len(c.Fixed)), think)
	}
	return fmt.Sprintf("conversations: %d turns a session of %s%s", c.Turns, c.Syn.Describe(), think)
}

// WithSeed draws other synthetic turns, or starts the ShareGPT sessions
// elsewhere (--fresh-prompts).
func (c *Conversations) WithSeed(seed int64) Workload {
	n := *c
	if c.Syn != nil {
		n.Syn = c.Syn.WithSeed(seed).(*Synthetic)
	} else if len(c.Fixed) > 1 {
		k := rand.New(rand.NewPCG(uint64(seed), 0x636f6e76)).IntN(len(c.Fixed))
		n.Fixed = append(append([][]Turn{}, c.Fixed[k:]...), c.Fixed[:k]...)
	}
	return &n
}

// maxSessionTokens bounds a ShareGPT session's history (every message and
// answer so far): vllm bench keeps a ShareGPT pair under 2,048 tokens; a
// session stops at the turn that would pass twice that.
const maxSessionTokens = 4096

// LoadConversations reads a ShareGPT file keeping every turn: each human
// message a user turn, the gpt answer after it its output length
// (--output-tokens overrides). A session ends at its first turn out of
// order, or before its history passes maxSessionTokens.
func LoadConversations(ctx context.Context, path string, think time.Duration, o DatasetOptions) (*Conversations, error) {
	entries, err := readShareGPT(path, o.Seed)
	if err != nil {
		return nil, err
	}
	c := counter{o.Tok, o.Sizing}
	conv := &Conversations{Name: "ShareGPT conversations " + path, Think: think}
	for _, e := range entries {
		if o.Want > 0 && len(conv.Fixed) >= o.Want {
			break
		}
		var turns []Turn
		history := 0
		msgs := e.Conversations
		for k := 0; k+1 < len(msgs) && msgs[k].From == "human" && msgs[k+1].From == "gpt"; k += 2 {
			un, err := c.count(ctx, msgs[k].Value)
			if err != nil {
				return nil, err
			}
			on := o.OutputTokens
			if on <= 0 {
				if on, err = c.count(ctx, msgs[k+1].Value); err != nil {
					return nil, err
				}
			}
			if un < 1 || on < 1 || history+un+on > maxSessionTokens {
				break
			}
			history += un + on
			turns = append(turns, Turn{User: msgs[k].Value, UserTokens: un, OutputTokens: on})
		}
		if len(turns) > 0 {
			conv.Fixed = append(conv.Fixed, turns)
		}
	}
	if len(conv.Fixed) == 0 {
		return nil, fmt.Errorf("%s: no usable conversations (human then gpt turns)", path)
	}
	return conv, nil
}

// Requests is how many requests the first n sessions send at most (a
// failed turn ends its session early): the run's progress total.
func (c *Conversations) Requests(n int) int {
	if len(c.Fixed) == 0 {
		return n * c.Turns
	}
	total := 0
	for i := range n {
		total += len(c.Fixed[i%len(c.Fixed)])
	}
	return total
}
