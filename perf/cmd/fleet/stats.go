package main

import (
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
