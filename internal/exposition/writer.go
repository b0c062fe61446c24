package exposition

import (
	"io"
	"strconv"

	dto "github.com/prometheus/client_model/go"
)

// Format is an exposition format this package writes.
type Format int

const (
	FormatText        Format = iota // text/plain; version=0.0.4
	FormatOpenMetrics               // application/openmetrics-text; version=1.0.0
	FormatProtobuf                  // delimited io.prometheus.client.MetricFamily
)

// flushAt is how much text is buffered before it goes to the output.
const flushAt = 64 << 10

// Writer writes metric families series by series. Errors are sticky: the
// first one is returned by Flush and every later write is skipped.
type Writer struct {
	out    io.Writer
	format Format
	buf    []byte // pending text, or the current protobuf family's metrics
	err    error

	name, help string
	typ        dto.MetricType
	headerDone bool

	// only, if not nil, names the families to write (name[]); skip is
	// set while the current family is not one of them.
	only map[string]struct{}
	skip bool
}

// spareBufs keeps two buffers across scrapes: a protobuf family of 10,000
// histograms is several MB and would otherwise be regrown every time. A
// channel rather than a sync.Pool, which every GC cycle empties.
var spareBufs = make(chan []byte, 2)

func getBuf() []byte {
	select {
	case b := <-spareBufs:
		return b[:0]
	default:
		return make([]byte, 0, flushAt+4096)
	}
}

// NewWriter returns a Writer of the given format to out. Call Flush when
// done; the Writer must not be used after that.
func NewWriter(out io.Writer, format Format) *Writer {
	return &Writer{out: out, format: format, buf: getBuf()}
}

// Family starts a family. Its HELP and TYPE are written with its first
// series, so a family without series is left out, as client_golang does.
func (w *Writer) Family(name, help string, typ dto.MetricType) {
	w.endFamily()
	w.name, w.help, w.typ, w.headerDone = name, help, typ, false
	if w.only != nil {
		_, keep := w.only[name]
		w.skip = !keep
	}
}

// WriteIfFull sends buffered text on once it passes the flush size. Series
// calls never write to the output themselves, so a caller can hold a lock
// around them without a slow reader holding it too: it calls WriteIfFull
// after letting go. Protobuf families are written whole, at Family and Flush.
func (w *Writer) WriteIfFull() {
	if w.format != FormatProtobuf && len(w.buf) >= flushAt {
		w.write()
	}
}

// Flush ends the current family, writes everything buffered and releases
// the buffer.
func (w *Writer) Flush() error {
	w.endFamily()
	w.write()
	select {
	case spareBufs <- w.buf:
	default:
	}
	w.buf = nil
	return w.err
}

func (w *Writer) write() {
	if w.err == nil && len(w.buf) > 0 {
		_, w.err = w.out.Write(w.buf)
	}
	w.buf = w.buf[:0]
}

func (w *Writer) endFamily() {
	if w.format == FormatProtobuf && w.headerDone {
		w.writeProtoFamily()
	}
	w.headerDone = false
}

// Counter writes one counter series. extra, if not nil, is a label beside ls.
func (w *Writer) Counter(ls LabelSet, extra *Label, v float64, created int64) {
	if w.skip {
		return
	}
	if w.format == FormatProtobuf {
		w.protoCounter(ls, extra, v, created)
		return
	}
	w.textHeader()
	w.textSample("", ls, extra, nil, v)
}

// Gauge writes one gauge series.
func (w *Writer) Gauge(ls LabelSet, extra *Label, v float64) {
	if w.skip {
		return
	}
	if w.format == FormatProtobuf {
		w.protoGauge(ls, extra, v)
		return
	}
	w.textHeader()
	w.textSample("", ls, extra, nil, v)
}

// Histogram writes one histogram series.
func (w *Writer) Histogram(ls LabelSet, h *Histogram) {
	if w.skip {
		return
	}
	if w.format == FormatProtobuf {
		w.protoHistogram(ls, h)
		return
	}
	w.textHeader()
	om := w.format == FormatOpenMetrics
	var cum uint64
	for i, c := range h.counts {
		cum += c
		w.textSeries("_bucket", ls, nil, &h.spec.le[i])
		if om {
			w.buf = strconv.AppendUint(w.buf, cum, 10)
			if h.exemplars != nil && h.exemplars[i].value != "" {
				w.omExemplar(h.spec.exemplarLabel, h.exemplars[i])
			}
		} else {
			w.buf = appendFloat(w.buf, float64(cum))
		}
		w.endLine()
	}
	w.textSample("_sum", ls, nil, nil, h.sum)
	w.textSeries("_count", ls, nil, nil)
	if om {
		w.buf = strconv.AppendUint(w.buf, h.count, 10)
	} else {
		w.buf = appendFloat(w.buf, float64(h.count))
	}
	w.endLine()
}
