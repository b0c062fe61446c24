package exposition

import (
	"math"
	"slices"
	"strings"

	"google.golang.org/protobuf/encoding/protowire"
)

// Label is one label pair, rendered once for every format so that writing
// a series copies bytes instead of escaping strings.
type Label struct {
	Name  string
	text  []byte // name="value" for text 0.0.4
	om    []byte // the same for OpenMetrics (differs only for le)
	proto []byte // a LabelPair field (number 1 in Metric and Exemplar)
}

var valueEscaper = strings.NewReplacer(`\`, `\\`, "\n", `\n`, `"`, `\"`)

// NewLabel renders a label pair. The name must be a valid label name.
func NewLabel(name, value string) Label {
	text := []byte(name + `="` + valueEscaper.Replace(value) + `"`)
	return Label{Name: name, text: text, om: text, proto: appendLabelPair(nil, 1, name, value)}
}

// newLeLabel renders a bucket bound: expfmt writes "1" in text 0.0.4 and
// "1.0" in OpenMetrics. Protobuf carries bounds as numbers, not labels.
func newLeLabel(bound float64) Label {
	return Label{
		Name: "le",
		text: append([]byte(`le="`), append(appendFloat(nil, bound), '"')...),
		om:   append([]byte(`le="`), append(appendOMFloat(nil, bound), '"')...),
	}
}

func appendLabelPair(b []byte, field protowire.Number, name, value string) []byte {
	b, start := beginMessage(b, field)
	b = protowire.AppendTag(b, 1, protowire.BytesType)
	b = protowire.AppendString(b, name)
	b = protowire.AppendTag(b, 2, protowire.BytesType)
	b = protowire.AppendString(b, value)
	return endMessage(b, start)
}

// LabelSet is the constant labels of a series, sorted by name as
// client_golang sorts them.
type LabelSet []Label

// NewLabelSet sorts labels by name.
func NewLabelSet(labels ...Label) LabelSet {
	ls := slices.Clone(labels)
	slices.SortFunc(ls, func(a, b Label) int { return strings.Compare(a.Name, b.Name) })
	return ls
}

// appendFloat formats like expfmt's text 0.0.4 writer.
func appendFloat(b []byte, f float64) []byte {
	switch {
	case f == 1:
		return append(b, '1')
	case f == 0:
		return append(b, '0')
	case f == -1:
		return append(b, "-1"...)
	case math.IsNaN(f):
		return append(b, "NaN"...)
	case math.IsInf(f, +1):
		return append(b, "+Inf"...)
	case math.IsInf(f, -1):
		return append(b, "-Inf"...)
	}
	return strconvAppendFloat(b, f)
}

// appendOMFloat formats like expfmt's OpenMetrics writer: integers get ".0".
func appendOMFloat(b []byte, f float64) []byte {
	switch {
	case math.IsNaN(f), math.IsInf(f, 0):
		return appendFloat(b, f)
	case f == 1, f == 0, f == -1:
		return append(appendFloat(b, f), ".0"...)
	}
	n := len(b)
	b = strconvAppendFloat(b, f)
	if !slices.ContainsFunc(b[n:], func(c byte) bool { return c == 'e' || c == '.' }) {
		b = append(b, ".0"...)
	}
	return b
}
