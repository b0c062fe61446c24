package main

import (
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"strconv"
	"time"

	"github.com/llm-prober/llm-prober/internal/promapi"
)

// promAPI adds range queries to the shared client.
type promAPI struct{ promapi.Client }

// rangeSeries is one series of a range query; a missing step is NaN.
type rangeSeries struct {
	Metric map[string]string
	Values map[int64]float64 // unix seconds -> value
}

func (a promAPI) queryRange(ctx context.Context, q string, start, end time.Time, step time.Duration) ([]rangeSeries, error) {
	data, err := a.Get(ctx, "/api/v1/query_range", url.Values{
		"query": {q},
		"start": {strconv.FormatInt(start.Unix(), 10)},
		"end":   {strconv.FormatInt(end.Unix(), 10)},
		"step":  {strconv.FormatFloat(step.Seconds(), 'f', -1, 64)},
	})
	if err != nil {
		return nil, err
	}
	var res struct {
		Result []struct {
			Metric map[string]string `json:"metric"`
			Values [][2]any          `json:"values"`
		} `json:"result"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, err
	}
	var out []rangeSeries
	for _, r := range res.Result {
		s := rangeSeries{Metric: r.Metric, Values: map[int64]float64{}}
		for _, v := range r.Values {
			ts, _ := v[0].(float64)
			str, _ := v[1].(string)
			f, err := strconv.ParseFloat(str, 64)
			if err == nil {
				s.Values[int64(ts)] = f
			}
		}
		out = append(out, s)
	}
	return out, nil
}

// alertKey is one alert for one personality ("prober" for alerts about
// the prober itself, which carry no target).
type alertKey struct{ name, who string }

// outcome is what the drill saw of one alert key.
type outcome struct {
	pendingAt, firedAt time.Time // first seen pending / firing
	lastSeen           time.Time // last poll at which it was active
	active             bool      // active at the last poll
	firingAt           time.Time // start of the current firing (zero if not firing)
}

// tracker polls Prometheus' alerts and keeps an outcome per key.
type tracker struct {
	api     promAPI
	start   time.Time
	targets map[string]string // target name -> personality
	seen    map[alertKey]*outcome
	// firing counts the alerts firing at the last poll, but for
	// LLMProberProbeResultsAbsent (about no prober at all): after the
	// prober's kill it must never be 0 (issue 23's silent gap).
	firing int
}

func (t *tracker) poll(ctx context.Context) error {
	alerts, err := t.api.Alerts(ctx)
	if err != nil {
		return err
	}
	now := time.Now()
	active := map[alertKey]string{}
	t.firing = 0
	for _, a := range alerts {
		if a.State == "firing" && a.Labels["alertname"] != "LLMProberProbeResultsAbsent" {
			t.firing++
		}
		who := "prober"
		if tg, ok := a.Labels["target"]; ok {
			who = t.targets[tg]
			if who == "" {
				who = tg
			}
		}
		name := a.Labels["alertname"]
		if l := a.Labels["long"]; l != "" {
			name += " " + l + "/" + a.Labels["short"] // one row per burn-rate window
		}
		k := alertKey{name, who}
		if a.State == "firing" || active[k] == "" {
			active[k] = a.State
		}
	}
	for k, o := range t.seen {
		if _, ok := active[k]; !ok {
			o.active = false
			o.firingAt = time.Time{}
		}
	}
	for k, state := range active {
		o := t.seen[k]
		if o == nil {
			o = &outcome{}
			t.seen[k] = o
		}
		o.active, o.lastSeen = true, now
		if o.pendingAt.IsZero() {
			o.pendingAt = now
		}
		if state == "firing" {
			if o.firedAt.IsZero() {
				o.firedAt = now
				fmt.Printf("%8s  firing   %-38s %s\n", since(t.start, now), k.name, k.who)
			}
			if o.firingAt.IsZero() {
				o.firingAt = now
			}
		} else {
			o.firingAt = time.Time{}
		}
	}
	return nil
}

func since(start, t time.Time) string {
	d := t.Sub(start).Round(time.Second)
	return fmt.Sprintf("%dm%02ds", int(d.Minutes()), int(d.Seconds())%60)
}
