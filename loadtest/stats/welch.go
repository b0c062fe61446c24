package stats

import "math"

// WelchResult is Welch's two-sample t-test of mean(b) − mean(a), for
// run-level values (one number per run): the difference, its interval at
// 1 − alpha, the Welch–Satterthwaite degrees of freedom and the
// two-sided p-value. Each side needs two values; when neither varies,
// p is 1 for equal means and 0 otherwise (no noise to hide a change).
type WelchResult struct {
	Diff, Lo, Hi, DF, PValue float64
}

// Welch tests b against a (scipy.stats.ttest_ind(b, a, equal_var=False)).
func Welch(a, b []float64, alpha float64) WelchResult {
	if len(a) < 2 || len(b) < 2 {
		return WelchResult{math.NaN(), math.NaN(), math.NaN(), math.NaN(), 1}
	}
	ma, va := meanVar(a)
	mb, vb := meanVar(b)
	r := WelchResult{Diff: mb - ma}
	sa, sb := va/float64(len(a)), vb/float64(len(b))
	se := math.Sqrt(sa + sb)
	if se == 0 {
		r.Lo, r.Hi, r.DF, r.PValue = r.Diff, r.Diff, math.Inf(1), 1
		if r.Diff != 0 {
			r.PValue = 0
		}
		return r
	}
	r.DF = (sa + sb) * (sa + sb) / (sa*sa/float64(len(a)-1) + sb*sb/float64(len(b)-1))
	t := r.Diff / se
	r.PValue = 2 * TSF(math.Abs(t), r.DF)
	half := TQuantile(1-alpha/2, r.DF) * se
	r.Lo, r.Hi = r.Diff-half, r.Diff+half
	return r
}

// meanVar is the mean and the sample variance (n − 1).
func meanVar(x []float64) (mean, variance float64) {
	m, _ := MeanStd(x)
	var ss float64
	for _, v := range x {
		ss += (v - m) * (v - m)
	}
	return m, ss / float64(len(x)-1)
}

// TSF is Student's t survival function P(T > t), t ≥ 0, df > 0 (real):
// ½·I_{df/(df+t²)}(df/2, ½).
func TSF(t, df float64) float64 {
	if t < 0 {
		return 1 - TSF(-t, df)
	}
	return 0.5 * regIncBeta(df/2, 0.5, df/(df+t*t))
}

// TQuantile is Student's t quantile q (0.5 < q < 1), by bisection on TSF.
func TQuantile(q, df float64) float64 {
	lo, hi := 0.0, 1.0
	for TSF(hi, df) > 1-q {
		hi *= 2
		if hi > 1e12 {
			return math.Inf(1)
		}
	}
	for range 200 {
		mid := (lo + hi) / 2
		if TSF(mid, df) > 1-q {
			lo = mid
		} else {
			hi = mid
		}
	}
	return (lo + hi) / 2
}

// regIncBeta is the regularized incomplete beta function I_x(a, b), by
// its continued fraction (Numerical Recipes' betacf).
func regIncBeta(a, b, x float64) float64 {
	switch {
	case x <= 0:
		return 0
	case x >= 1:
		return 1
	}
	la, _ := math.Lgamma(a + b)
	lb, _ := math.Lgamma(a)
	lc, _ := math.Lgamma(b)
	front := math.Exp(la - lb - lc + a*math.Log(x) + b*math.Log(1-x))
	if x < (a+1)/(a+b+2) {
		return front * betaCF(a, b, x) / a
	}
	return 1 - front*betaCF(b, a, 1-x)/b
}

func betaCF(a, b, x float64) float64 {
	const tiny = 1e-300
	c, d := 1.0, 1-(a+b)*x/(a+1)
	if math.Abs(d) < tiny {
		d = tiny
	}
	d = 1 / d
	h := d
	for m := 1; m <= 300; m++ {
		fm := float64(m)
		aa := fm * (b - fm) * x / ((a + 2*fm - 1) * (a + 2*fm))
		d, c = 1+aa*d, 1+aa/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		h *= d * c
		aa = -(a + fm) * (a + b + fm) * x / ((a + 2*fm) * (a + 2*fm + 1))
		d, c = 1+aa*d, 1+aa/c
		if math.Abs(d) < tiny {
			d = tiny
		}
		if math.Abs(c) < tiny {
			c = tiny
		}
		d = 1 / d
		del := d * c
		h *= del
		if math.Abs(del-1) < 3e-16 {
			break
		}
	}
	return h
}
