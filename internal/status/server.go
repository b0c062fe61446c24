package status

import (
	"math"
	"time"
)

// ServerReading is a target's capacity signals at one time, NaN where the
// server does not export one.
type ServerReading struct {
	At                               time.Time
	KVCacheUsage                     float64 // 0..1
	RequestsRunning, RequestsWaiting float64
	Preemptions                      float64 // a counter
}

// serverMinute is the first reading of one minute, and the preemptions
// counted since the reading before.
type serverMinute struct {
	at                   uint32 // Unix seconds of the reading (until 2106)
	kv, running, waiting float32
	preempted            float32 // NaN when there is no earlier reading to compare
}

// serverWindow is one target's last hour of readings, one per minute at
// most. Its owner locks around it.
type serverWindow struct {
	minutes     [Minutes]serverMinute
	lastCounter float64 // the last Preemptions reading, NaN before the first
	lastAt      time.Time
}

func newServerWindow() *serverWindow {
	return &serverWindow{lastCounter: math.NaN()}
}

// add keeps r as its minute's reading.
func (w *serverWindow) add(r ServerReading) {
	if !r.At.After(w.lastAt) {
		return // the same scrape again, or an older one
	}
	preempted := math.NaN()
	if !math.IsNaN(w.lastCounter) && !math.IsNaN(r.Preemptions) {
		preempted = r.Preemptions - w.lastCounter
		if preempted < 0 { // the server restarted: its counter began again
			preempted = r.Preemptions
		}
	}
	w.lastCounter, w.lastAt = r.Preemptions, r.At
	w.minutes[r.At.Unix()/60%Minutes] = serverMinute{at: uint32(r.At.Unix()), kv: float32(r.KVCacheUsage),
		running: float32(r.RequestsRunning), waiting: float32(r.RequestsWaiting), preempted: float32(preempted)}
}

// ServerSummary is one target's server signals: the latest reading, the
// preemption rate over the hour, and per-minute trends (oldest first, NaN
// where there was no reading).
type ServerSummary struct {
	Latest ServerReading
	// PreemptionsPerMinute is the counter's increase over the hour divided
	// by the minutes between the readings compared; NaN without two.
	PreemptionsPerMinute     float64
	KVCacheTrend, QueueTrend []float64
}

func (w *serverWindow) summary(now time.Time) ServerSummary {
	cur := now.Unix() / 60
	s := ServerSummary{PreemptionsPerMinute: math.NaN(), KVCacheTrend: make([]float64, Minutes), QueueTrend: make([]float64, Minutes)}
	var preempted float64
	first, counted := int64(-1), false
	for i := range Minutes {
		m := cur - int64(Minutes-1-i)
		b := w.minutes[m%Minutes]
		s.KVCacheTrend[i], s.QueueTrend[i] = math.NaN(), math.NaN()
		if int64(b.at)/60 != m {
			continue
		}
		s.KVCacheTrend[i], s.QueueTrend[i] = float64(b.kv), float64(b.waiting)
		s.Latest = ServerReading{KVCacheUsage: float64(b.kv), RequestsRunning: float64(b.running), RequestsWaiting: float64(b.waiting)}
		if first < 0 {
			first = int64(b.at) // its increase reaches back before the hour: not counted
			continue
		}
		if !math.IsNaN(float64(b.preempted)) {
			preempted += float64(b.preempted)
			counted = true
		}
	}
	if first < 0 {
		return s
	}
	s.Latest.At, s.Latest.Preemptions = w.lastAt, w.lastCounter
	if span := float64(w.lastAt.Unix()-first) / 60; counted && span > 0 {
		s.PreemptionsPerMinute = preempted / span
	}
	return s
}
