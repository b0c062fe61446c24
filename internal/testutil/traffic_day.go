package testutil

import "time"

// DiurnalTraffic is two days of known traffic ending at the last UTC
// midnight at least a day ago: hour 14 (UTC) peaks at 10 req/s on day one
// and 8 on day two, hour 13 serves 6, others 2 to 4. Target a serves 60 %,
// re-exported by two probers (p1, p2: identical copies); target b serves
// 40 %, seen by p1, and its server restarts at 10:00 on day one (its
// counters start again). Prompts: 40 % of 100 tokens, 60 % of 1,000
// (mean 640, median 768 by Prometheus's interpolation over buckets 128,
// 512, 2048); generations: all 200. One sample a minute.
func DiurnalTraffic(now time.Time) Traffic {
	start := now.UTC().Truncate(24 * time.Hour).Add(-72 * time.Hour)
	return Traffic{
		Start: start, Duration: 48 * time.Hour, Interval: time.Minute,
		Rate: func(t time.Time) float64 { return DiurnalRate(start, t) },
		Targets: []TrafficTarget{
			{Name: "a", Share: 0.6, Instances: []string{"p1", "p2"}},
			{Name: "b", Share: 0.4, Instances: []string{"p1"}, ResetAt: start.Add(10 * time.Hour)},
		},
		Reasons:    map[string]float64{"stop": 0.9, "length": 0.1},
		Prompt:     []Length{{100, 0.4}, {1000, 0.6}},
		Generation: []Length{{200, 1}},
		Buckets:    []float64{128, 512, 2048},
	}
}

// DiurnalRate is DiurnalTraffic's rate over the minute ending at t.
func DiurnalRate(start, t time.Time) float64 {
	m := t.Add(-time.Minute) // the minute's own hour
	day, h := int(m.Sub(start)/(24*time.Hour)), m.UTC().Hour()
	switch {
	case h == 14 && day == 0:
		return 10
	case h == 14:
		return 8
	case h == 13:
		return 6
	}
	return 2 + float64(h%5)*0.5
}
