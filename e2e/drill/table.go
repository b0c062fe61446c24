package main

import (
	"fmt"
	"slices"
	"sort"
	"strings"
	"time"
)

type result struct {
	mode                       mode
	alerts                     []string
	tr                         *tracker
	start                      time.Time
	targetKilled, proberKilled time.Time
	activeAtKill               map[alertKey]bool
	resolvedAt                 map[alertKey]time.Time
	silent                     []time.Time // polls after the prober's kill with nothing firing
	afterKill                  int         // polls after the prober's kill
}

// maxResolve is how long an alert about a target may outlive a dead prober.
const maxResolve = 5 * time.Minute

// render returns the markdown table and whether every expectation held.
// Times to fire count from when the fault began: the start of the drill,
// the kill of the dead target, or the kill of the prober.
func (r result) render() (string, bool) {
	ok := true
	var b strings.Builder
	fmt.Fprintf(&b, "Alert drill (%s), %s: rules from alerts/ unchanged, scrape and evaluation every 5s.\n",
		r.mode.name, r.start.UTC().Format("2006-01-02 15:04 MST"))
	fmt.Fprintf(&b, "The dead target was killed at %s and llm-prober at %s; times to fire count from the start, from the target's kill (dead) and from the prober's kill (prober).\n",
		since(r.start, r.targetKilled), since(r.start, r.proberKilled))
	b.WriteString("Expected alerts are in bold; anything on `healthy` fails the drill.\n\n")
	b.WriteString("| alert | " + strings.Join(personalities, " | ") + " |\n")
	b.WriteString("|---" + strings.Repeat("|---", len(personalities)) + "|\n")
	for _, a := range r.alerts {
		cells := []string{"`" + a + "`"}
		for _, who := range personalities {
			cell, good := r.cell(a, who)
			ok = ok && good
			cells = append(cells, cell)
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
	}
	b.WriteString("\n")
	line, good := r.resolution()
	ok = ok && good
	b.WriteString(line + "\n")
	line, good = r.gap()
	ok = ok && good
	b.WriteString(line + "\n")
	if ok {
		b.WriteString("\nResult: PASS\n")
	} else {
		b.WriteString("\nResult: FAIL\n")
	}
	return b.String(), ok
}

func (r result) ref(who string) time.Time {
	switch who {
	case "dead":
		return r.targetKilled
	case "prober":
		return r.proberKilled
	}
	return r.start
}

func (r result) cell(alert, who string) (string, bool) {
	o := r.tr.seen[alertKey{alert, who}]
	state := "·"
	switch {
	case o == nil:
	case !o.firedAt.IsZero():
		state = "fired " + dur(o.firedAt.Sub(r.ref(who)))
	default:
		state = "pending"
	}
	switch {
	case slices.Contains(r.mode.expect[who], alert):
		if o == nil || o.firedAt.IsZero() {
			return "**MISSING** (" + state + ")", false
		}
		return "**" + state + "**", true
	case slices.Contains(r.mode.expectPending[who], alert):
		if o == nil {
			return "**MISSING** (never pending)", false
		}
		return "**" + state + "**", true
	case who == "healthy" || slices.Contains(mustNot[who], alert) || slices.Contains(mustNot["*"], alert):
		if o != nil {
			return "**UNEXPECTED** " + state, false
		}
	}
	return state, true
}

// resolution checks that every alert about a target resolved within
// maxResolve (and within the observation) once the prober was killed.
func (r result) resolution() (string, bool) {
	if r.proberKilled.IsZero() {
		return "The prober was never killed.", false
	}
	var slowest time.Duration
	var open []string
	for k := range r.activeAtKill {
		t, ok := r.resolvedAt[k]
		if !ok {
			open = append(open, k.name+"/"+k.who)
			continue
		}
		slowest = max(slowest, t.Sub(r.proberKilled))
	}
	sort.Strings(open)
	if len(open) > 0 {
		return fmt.Sprintf("After llm-prober was killed, %d of %d target alerts were still active %s later: %s.",
			len(open), len(r.activeAtKill), dur(time.Since(r.proberKilled)), strings.Join(open, ", ")), false
	}
	return fmt.Sprintf("After llm-prober was killed, all %d active target alerts resolved within %s (limit %s).",
		len(r.activeAtKill), dur(slowest), dur(maxResolve)), slowest <= maxResolve && len(r.activeAtKill) > 0
}

// gap checks that at every poll after the prober's kill something fired:
// its target alerts, then LLMProberDown.
func (r result) gap() (string, bool) {
	if len(r.silent) > 0 {
		return fmt.Sprintf("Nothing fired at %d of %d polls after llm-prober was killed, from %s to %s after the kill: a silent gap.",
			len(r.silent), r.afterKill, dur(r.silent[0].Sub(r.proberKilled)), dur(r.silent[len(r.silent)-1].Sub(r.proberKilled))), false
	}
	return fmt.Sprintf("Something fired at every one of the %d polls after llm-prober was killed (its target alerts, then LLMProberDown): no silent gap.",
		r.afterKill), r.afterKill > 0
}

func dur(d time.Duration) string {
	d = d.Round(time.Second)
	if d < time.Minute {
		return fmt.Sprintf("%ds", int(d.Seconds()))
	}
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
