// Package status keeps the last hour of every (target, module)'s probes
// and of every target's server signals, in bounded memory, for the status
// page: success ratio and SLO attainment, TTFT, TPOT, E2EL and worst-gap (max ITL) percentiles, per-minute
// trends. It is fed once per probe and read only when the page is shown.
package status

import (
	"math"
	"slices"
	"time"
)

const (
	// Minutes is the length of the window, in one-minute buckets.
	Minutes = 60
	// samplesPerMinute bounds the latencies kept per minute: up to one
	// probe every 10 s all are kept, beyond that a uniform sample.
	samplesPerMinute = 6
	maxSamples       = Minutes * samplesPerMinute
)

// minute counts one minute's probes; at says which minute (Unix minutes),
// so that a slot left over from an earlier hour is recognised as empty.
type minute struct {
	at               int32
	probes, ok, good uint32
}

// sample is one successful probe's latencies; tpot < 0 where not measured
// (one output token), maxITL < 0 where there was no gap (one chunk).
type sample struct {
	at                       uint32 // Unix seconds (until 2106): 20 bytes a sample
	ttft, tpot, e2el, maxITL float32
}

// latencies are one probe's, in seconds; tpot and maxITL < 0 where not
// measured.
type latencies struct{ ttft, tpot, e2el, maxITL float64 }

// window is one (target, module)'s last hour. Its owner locks around it.
type window struct {
	minutes [Minutes]minute
	// samples is a ring, grown up to maxSamples only as needed: at a 60 s
	// interval it holds 60.
	samples []sample
	next    int // where the next sample goes once the ring is full
	// The current minute's samples start at curStart; curSeen counts the
	// successes of that minute, for the uniform sample beyond the cap.
	curMinute int32
	curStart  int
	curSeen   int
	last      time.Time // the last probe, to forget a removed job
}

// add records a probe that ended at end. l holds its latencies, which
// count only for a success, and only if sampled; rnd(n) returns a random
// int in [0, n).
func (w *window) add(end time.Time, success, good, sampled bool, l latencies, rnd func(int) int) {
	m := int32(end.Unix() / 60)
	b := &w.minutes[int(m)%Minutes]
	if b.at != m {
		*b = minute{at: m}
	}
	b.probes++
	if success {
		b.ok++
	}
	if good {
		b.good++
	}
	w.last = end
	if !success || !sampled {
		return
	}
	s := sample{at: uint32(end.Unix()), ttft: float32(l.ttft), tpot: float32(l.tpot), e2el: float32(l.e2el), maxITL: float32(l.maxITL)}
	if m != w.curMinute {
		w.curMinute, w.curSeen, w.curStart = m, 0, w.pushAt()
	}
	w.curSeen++
	if w.curSeen <= samplesPerMinute {
		w.push(s)
		return
	}
	// Reservoir sampling: every success of the minute has the same chance
	// to be among the kept ones.
	if j := rnd(w.curSeen); j < samplesPerMinute {
		w.samples[(w.curStart+j)%len(w.samples)] = s
	}
}

// pushAt is the index the next push writes to.
func (w *window) pushAt() int {
	if len(w.samples) < maxSamples {
		return len(w.samples)
	}
	return w.next
}

func (w *window) push(s sample) {
	if len(w.samples) < maxSamples {
		w.samples = append(w.samples, s)
		return
	}
	w.samples[w.next] = s
	w.next = (w.next + 1) % maxSamples
}

// Summary is one (target, module)'s last hour.
type Summary struct {
	Probes, OK, Good int
	TTFT, TPOT, E2EL Quantiles
	MaxITL           Quantiles // of each probe's worst gap (probes with ≥ 2 content chunks)
	// Per minute, oldest first, NaN where there were no probes (or no
	// successful ones for TTFTTrend): the success ratio and the median TTFT
	// in seconds.
	SuccessTrend, TTFTTrend []float64
}

// SuccessRatio is OK/Probes, NaN without probes.
func (s Summary) SuccessRatio() float64 { return ratio(s.OK, s.Probes) }

// GoodRatio is Good/Probes (SLO attainment), NaN without probes.
func (s Summary) GoodRatio() float64 { return ratio(s.Good, s.Probes) }

func ratio(a, b int) float64 {
	if b == 0 {
		return math.NaN()
	}
	return float64(a) / float64(b)
}

// Quantiles of a latency over the window; N is how many probes measured
// it (at most samplesPerMinute per minute).
type Quantiles struct {
	N        int
	P50, P99 time.Duration
}

// summary reads the hour that ends at now.
func (w *window) summary(now time.Time) Summary {
	cur := int32(now.Unix() / 60)
	s := Summary{SuccessTrend: make([]float64, Minutes), TTFTTrend: make([]float64, Minutes)}
	for i := range Minutes {
		m := cur - int32(Minutes-1-i)
		b := w.minutes[int(m)%Minutes]
		s.SuccessTrend[i], s.TTFTTrend[i] = math.NaN(), math.NaN()
		if b.at != m || b.probes == 0 {
			continue
		}
		s.Probes += int(b.probes)
		s.OK += int(b.ok)
		s.Good += int(b.good)
		s.SuccessTrend[i] = float64(b.ok) / float64(b.probes)
	}
	from := int64(cur-Minutes+1) * 60
	var ttft, tpot, e2el, maxITL []float64
	perMinute := make([][]float64, Minutes)
	for _, x := range w.samples {
		at := int64(x.at)
		if at < from || at > now.Unix() {
			continue
		}
		ttft = append(ttft, float64(x.ttft))
		e2el = append(e2el, float64(x.e2el))
		i := int(at-from) / 60
		perMinute[i] = append(perMinute[i], float64(x.ttft))
		if x.tpot >= 0 {
			tpot = append(tpot, float64(x.tpot))
		}
		if x.maxITL >= 0 {
			maxITL = append(maxITL, float64(x.maxITL))
		}
	}
	s.TTFT, s.TPOT, s.E2EL, s.MaxITL = quantiles(ttft), quantiles(tpot), quantiles(e2el), quantiles(maxITL)
	for i, v := range perMinute {
		if len(v) > 0 {
			s.TTFTTrend[i] = nearestRank(v, 0.5)
		}
	}
	return s
}

func quantiles(v []float64) Quantiles {
	if len(v) == 0 {
		return Quantiles{}
	}
	// Kept as float32: rounded to the microsecond, 0.02 reads as 20ms.
	sec := func(f float64) time.Duration { return time.Duration(math.Round(f*1e6)) * time.Microsecond }
	return Quantiles{N: len(v), P50: sec(nearestRank(v, 0.5)), P99: sec(nearestRank(v, 0.99))}
}

// nearestRank is the q-quantile of v by the nearest-rank method: a value
// some probe really measured. It sorts v.
func nearestRank(v []float64, q float64) float64 {
	slices.Sort(v)
	i := int(math.Ceil(q*float64(len(v)))) - 1
	return v[max(i, 0)]
}
