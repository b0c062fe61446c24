package exposition

import (
	"math"

	"google.golang.org/protobuf/encoding/protowire"
)

// Field numbers of io.prometheus.client's metrics.proto.
const (
	famName, famHelp, famType, famMetric                  = 1, 2, 3, 4
	metLabel, metGauge, metCounter, metHistogram          = 1, 2, 3, 7
	valueField, counterCreated                            = 1, 3
	hCount, hSum, hBucket, hSchema, hZeroThreshold, hZero = 1, 2, 3, 5, 6, 7
	hNegSpan, hNegDelta, hPosSpan, hPosDelta, hCreated    = 9, 10, 12, 13, 15
	bCumulative, bUpper, bExemplar                        = 1, 2, 3
	exLabel, exValue, exTimestamp                         = 1, 2, 3
	spanOffset, spanLength                                = 1, 2
	tsSeconds, tsNanos                                    = 1, 2
)

// beginMessage starts an embedded message with a one-byte length that
// endMessage widens if needed, so nothing is sized twice.
func beginMessage(b []byte, field protowire.Number) ([]byte, int) {
	b = protowire.AppendTag(b, field, protowire.BytesType)
	return append(b, 0), len(b) + 1
}

func endMessage(b []byte, start int) []byte {
	n := len(b) - start
	k := protowire.SizeVarint(uint64(n))
	if k > 1 {
		b = append(b, make([]byte, k-1)...)
		copy(b[start+k-1:], b[start:start+n])
	}
	protowire.AppendVarint(b[:start-1], uint64(n))
	return b
}

func appendDouble(b []byte, field protowire.Number, v float64) []byte {
	b = protowire.AppendTag(b, field, protowire.Fixed64Type)
	return protowire.AppendFixed64(b, math.Float64bits(v))
}

func appendUvarint(b []byte, field protowire.Number, v uint64) []byte {
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, v)
}

func appendSvarint(b []byte, field protowire.Number, v int64) []byte {
	b = protowire.AppendTag(b, field, protowire.VarintType)
	return protowire.AppendVarint(b, protowire.EncodeZigZag(v))
}

// appendTimestamp writes a google.protobuf.Timestamp (proto3: zero fields
// are left out).
func appendTimestamp(b []byte, field protowire.Number, unixNano int64) []byte {
	b, start := beginMessage(b, field)
	if s := unixNano / 1e9; s != 0 {
		b = appendUvarint(b, tsSeconds, uint64(s))
	}
	if ns := unixNano % 1e9; ns != 0 {
		b = appendUvarint(b, tsNanos, uint64(ns))
	}
	return endMessage(b, start)
}

func (w *Writer) protoLabels(ls LabelSet, extra *Label) {
	for i := range ls {
		if extra != nil && extra.Name < ls[i].Name {
			w.buf = append(w.buf, extra.proto...)
			extra = nil
		}
		w.buf = append(w.buf, ls[i].proto...)
	}
	if extra != nil {
		w.buf = append(w.buf, extra.proto...)
	}
}

// beginMetric starts a Metric message with its labels; the caller ends it
// at the returned offset.
func (w *Writer) beginMetric(ls LabelSet, extra *Label) int {
	w.headerDone = true
	var m int
	w.buf, m = beginMessage(w.buf, famMetric)
	w.protoLabels(ls, extra)
	return m
}

func (w *Writer) protoCounter(ls LabelSet, extra *Label, v float64, created int64) {
	m := w.beginMetric(ls, extra)
	b, c := beginMessage(w.buf, metCounter)
	b = appendDouble(b, valueField, v)
	b = appendTimestamp(b, counterCreated, created)
	w.buf = endMessage(endMessage(b, c), m)
}

func (w *Writer) protoGauge(ls LabelSet, extra *Label, v float64) {
	m := w.beginMetric(ls, extra)
	b, g := beginMessage(w.buf, metGauge)
	b = appendDouble(b, valueField, v)
	w.buf = endMessage(endMessage(b, g), m)
}

// protoHistogram writes what client_golang's Histogram.Write produces: the
// classic buckets (+Inf only when it holds an exemplar) and the native
// buckets. Native exemplars are not kept; Prometheus then takes the
// classic buckets' exemplars.
func (w *Writer) protoHistogram(ls LabelSet, h *Histogram) {
	m := w.beginMetric(ls, nil)
	b, hs := beginMessage(w.buf, metHistogram)
	b = appendUvarint(b, hCount, h.count)
	b = appendDouble(b, hSum, h.sum)
	var cum uint64
	for i, c := range h.counts {
		cum += c
		last := i == len(h.counts)-1
		hasEx := h.exemplars != nil && h.exemplars[i].value != ""
		if last && !hasEx {
			break
		}
		var bk int
		b, bk = beginMessage(b, hBucket)
		b = appendUvarint(b, bCumulative, cum)
		bound := math.Inf(1)
		if !last {
			bound = h.spec.bounds[i]
		}
		b = appendDouble(b, bUpper, bound)
		if hasEx {
			b = appendExemplar(b, h.spec.exemplarLabel, h.exemplars[i])
		}
		b = endMessage(b, bk)
	}
	b = appendSvarint(b, hSchema, int64(h.native.schema))
	b = appendDouble(b, hZeroThreshold, DefaultZeroThreshold)
	b = appendUvarint(b, hZero, h.native.zero)
	b = appendSpans(b, hNegSpan, hNegDelta, h.native.neg)
	b = appendSpans(b, hPosSpan, hPosDelta, h.native.pos)
	b = appendTimestamp(b, hCreated, h.created.UnixNano())
	w.buf = endMessage(endMessage(b, hs), m)
}

func appendExemplar(b []byte, labels string, e exemplar) []byte {
	b, start := beginMessage(b, bExemplar)
	eachExemplarLabel(labels, e.value, func(name, value string) {
		b = appendLabelPair(b, exLabel, name, value)
	})
	b = appendDouble(b, exValue, e.v)
	b = appendTimestamp(b, exTimestamp, e.unixNano)
	return endMessage(b, start)
}

func appendSpans(b []byte, spanField, deltaField protowire.Number, bs []nativeBucket) []byte {
	spans(bs, func(offset int32, length uint32) {
		var start int
		b, start = beginMessage(b, spanField)
		b = appendSvarint(b, spanOffset, int64(offset))
		b = appendUvarint(b, spanLength, uint64(length))
		b = endMessage(b, start)
	}, func(d int64) {
		b = appendSvarint(b, deltaField, d)
	})
	return b
}

// writeProtoFamily writes the buffered metrics of the current family as
// one length-delimited MetricFamily.
func (w *Writer) writeProtoFamily() {
	var head []byte
	head = protowire.AppendTag(head, famName, protowire.BytesType)
	head = protowire.AppendString(head, w.name)
	head = protowire.AppendTag(head, famHelp, protowire.BytesType)
	head = protowire.AppendString(head, w.help)
	head = appendUvarint(head, famType, uint64(w.typ))
	size := protowire.AppendVarint(nil, uint64(len(head)+len(w.buf)))
	if w.err == nil {
		_, w.err = w.out.Write(append(size, head...))
	}
	w.write()
}
