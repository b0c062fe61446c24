package main

import (
	"fmt"
	"math"
	"net"
	"os"
	"strconv"
	"strings"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// sub is the histogram of the observations made between b and a.
func sub(a, b *dto.Histogram) *dto.Histogram {
	out := &dto.Histogram{SampleCount: ptr(a.GetSampleCount() - b.GetSampleCount())}
	for i, bk := range a.GetBucket() {
		c := bk.GetCumulativeCount() - b.GetBucket()[i].GetCumulativeCount()
		out.Bucket = append(out.Bucket, &dto.Bucket{UpperBound: ptr(bk.GetUpperBound()), CumulativeCount: &c})
	}
	return out
}

func add(a, b *dto.Histogram) *dto.Histogram {
	if a == nil {
		return b
	}
	out := &dto.Histogram{SampleCount: ptr(a.GetSampleCount() + b.GetSampleCount())}
	for i, bk := range a.GetBucket() {
		c := bk.GetCumulativeCount() + b.GetBucket()[i].GetCumulativeCount()
		out.Bucket = append(out.Bucket, &dto.Bucket{UpperBound: ptr(bk.GetUpperBound()), CumulativeCount: &c})
	}
	return out
}

func ptr[T any](v T) *T { return &v }

// quantile interpolates linearly inside the classic bucket holding q.
func quantile(h *dto.Histogram, q float64) float64 {
	total := float64(h.GetSampleCount())
	if total == 0 {
		return math.NaN()
	}
	rank, lo, prev := q*total, 0.0, 0.0
	for _, b := range h.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if c >= rank {
			if c == prev {
				return b.GetUpperBound()
			}
			return lo + (b.GetUpperBound()-lo)*(rank-prev)/(c-prev)
		}
		lo, prev = b.GetUpperBound(), c
	}
	return math.Inf(1)
}

func fraction(h *dto.Histogram, bound float64) string {
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == bound && h.GetSampleCount() > 0 {
			return fmt.Sprintf("%.2f%%", 100*float64(b.GetCumulativeCount())/float64(h.GetSampleCount()))
		}
	}
	return "-"
}

func ms(s float64) string { return strconv.FormatFloat(s*1000, 'g', 3, 64) + "ms" }

// procCPU is the process's user+system CPU time from /proc.
func procCPU(pid int) time.Duration {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0
	}
	f := strings.Fields(string(b[strings.LastIndexByte(string(b), ')')+2:]))
	u, _ := strconv.ParseInt(f[11], 10, 64)
	s, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(u+s) * time.Second / 100 // USER_HZ
}

func procRSS(pid int) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmRSS:"); ok {
			kb, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return kb << 10
		}
	}
	return 0
}

func loadavg() string {
	b, _ := os.ReadFile("/proc/loadavg")
	f := strings.Fields(string(b))
	if len(f) < 3 {
		return "?"
	}
	return strings.Join(f[:3], "/")
}

func freeAddr() string {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	check(err)
	defer l.Close()
	return l.Addr().String()
}
