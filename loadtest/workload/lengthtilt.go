package workload

import (
	"math"
	"slices"
)

// maxTilt bounds λ (per token): beyond it a bucket's mass sits within a
// token of its edge.
const maxTilt = 1.0

// fitTilt sets d.Tilt so the mean is target, as near as the buckets allow.
func (d *LengthDist) fitTilt(target float64) {
	d.Tilt = 0
	if !(target > 0) || math.Abs(d.mean()-target) < 0.5 {
		return
	}
	lo, hi := -maxTilt, maxTilt
	for range 100 {
		d.Tilt = (lo + hi) / 2
		if d.mean() < target {
			lo = d.Tilt
		} else {
			hi = d.Tilt
		}
	}
	if math.Abs(d.Tilt) < 1e-9 {
		d.Tilt = 0
	}
}

// tilted is the tilt of bucket b: the open bucket stays uniform.
func (d *LengthDist) tilted(b LengthBucket) float64 {
	if b.Open {
		return 0
	}
	return d.Tilt
}

// tiltMean is the mean offset from the bucket's low end of a density
// ∝ e^{λt} on [0, w].
func tiltMean(w, l float64) float64 {
	switch {
	case math.Abs(l*w) < 1e-6:
		return w / 2
	case l < 0:
		return 1/-l - w/math.Expm1(-l*w)
	default:
		return w - (1/l - w/math.Expm1(l*w))
	}
}

// tiltCDF is P(T ≤ t) for that density, t in [0, w].
func tiltCDF(t, w, l float64) float64 {
	switch {
	case math.Abs(l*w) < 1e-6:
		return t / w
	case l < 0:
		return math.Expm1(l*t) / math.Expm1(l*w)
	default:
		return (math.Exp(l*(t-w)) - math.Exp(-l*w)) / -math.Expm1(-l*w)
	}
}

// tiltSample draws t in [0, w] from that density, u uniform in [0, 1).
func tiltSample(u, w, l float64) float64 {
	switch {
	case math.Abs(l*w) < 1e-6:
		return u * w
	case l < 0:
		return math.Log1p(u*math.Expm1(l*w)) / l
	default:
		return w + math.Log(u+(1-u)*math.Exp(-l*w))/l
	}
}

// mean is the mean of what is drawn (before whole numbers).
func (d *LengthDist) mean() float64 {
	var s float64
	for _, b := range d.Buckets {
		s += b.Requests * (b.Lo + tiltMean(b.Hi-b.Lo, d.tilted(b)))
	}
	return s / d.Requests
}

// meanAtLeast is E[max(L, x)] = x + ∫ₓ P(L > t) dt, integrated piecewise
// between the buckets' edges (Simpson's rule; exact where uniform).
func (d *LengthDist) meanAtLeast(x float64) float64 {
	edges := []float64{x}
	for _, b := range d.Buckets {
		edges = append(edges, b.Lo, b.Hi)
	}
	slices.Sort(edges)
	s := x
	for i := 1; i < len(edges); i++ {
		a, b := max(edges[i-1], x), edges[i]
		if b <= a {
			continue
		}
		const n = 16
		h := (b - a) / n
		sum := 2 - d.cdf(a) - d.cdf(b)
		for k := 1; k < n; k++ {
			c := 2.0
			if k%2 == 1 {
				c = 4
			}
			sum += c * (1 - d.cdf(a+float64(k)*h))
		}
		s += sum * h / 3
	}
	return s
}
