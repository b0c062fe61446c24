package exposition

import (
	"strconv"
	"strings"

	dto "github.com/prometheus/client_model/go"
)

var helpEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`)

var typeNames = map[dto.MetricType]string{
	dto.MetricType_COUNTER: "counter", dto.MetricType_GAUGE: "gauge", dto.MetricType_HISTOGRAM: "histogram",
}

// textHeader writes HELP and TYPE before a family's first series.
// OpenMetrics names a counter family without its _total suffix.
func (w *Writer) textHeader() {
	if w.headerDone {
		return
	}
	w.headerDone = true
	name := w.name
	help := helpEscaper
	if w.format == FormatOpenMetrics {
		help = valueEscaper
		if w.typ == dto.MetricType_COUNTER {
			name = strings.TrimSuffix(name, "_total")
		}
	}
	w.buf = append(w.buf, "# HELP "+name+" "...)
	w.buf = append(w.buf, help.Replace(w.help)...)
	w.buf = append(w.buf, "\n# TYPE "+name+" "+typeNames[w.typ]+"\n"...)
}

// textSeries writes name+suffix and the labels, in client_golang's order:
// ls and extra sorted by name, le last.
func (w *Writer) textSeries(suffix string, ls LabelSet, extra, le *Label) {
	w.buf = append(w.buf, w.name...)
	w.buf = append(w.buf, suffix...)
	if len(ls) > 0 || extra != nil || le != nil {
		sep := byte('{')
		put := func(l *Label) {
			w.buf = append(w.buf, sep)
			sep = ','
			if w.format == FormatOpenMetrics {
				w.buf = append(w.buf, l.om...)
			} else {
				w.buf = append(w.buf, l.text...)
			}
		}
		for i := range ls {
			if extra != nil && extra.Name < ls[i].Name {
				put(extra)
				extra = nil
			}
			put(&ls[i])
		}
		if extra != nil {
			put(extra)
		}
		if le != nil {
			put(le)
		}
		w.buf = append(w.buf, '}')
	}
	w.buf = append(w.buf, ' ')
}

func (w *Writer) textSample(suffix string, ls LabelSet, extra, le *Label, v float64) {
	w.textSeries(suffix, ls, extra, le)
	if w.format == FormatOpenMetrics {
		w.buf = appendOMFloat(w.buf, v)
	} else {
		w.buf = appendFloat(w.buf, v)
	}
	w.endLine()
}

func (w *Writer) omExemplar(labels string, e exemplar) {
	w.buf = append(w.buf, " # {"...)
	first := true
	eachExemplarLabel(labels, e.value, func(name, value string) {
		if !first {
			w.buf = append(w.buf, ',')
		}
		first = false
		w.buf = append(w.buf, name+`="`...)
		w.buf = append(w.buf, valueEscaper.Replace(value)...)
		w.buf = append(w.buf, '"')
	})
	w.buf = append(w.buf, `} `...)
	w.buf = appendOMFloat(w.buf, e.v)
	w.buf = append(w.buf, ' ')
	w.buf = appendOMFloat(w.buf, float64(e.unixNano)/1e9)
}

func (w *Writer) endLine() { w.buf = append(w.buf, '\n') }

func strconvAppendFloat(b []byte, f float64) []byte { return strconv.AppendFloat(b, f, 'g', -1, 64) }
