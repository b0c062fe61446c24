package exposition

import (
	"bytes"
	"errors"
	"io"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
)

// Gather renders src as protobuf and decodes it: the families as
// client_golang's Gather returns them, for tests and small outputs (the
// /metrics handler streams instead).
func Gather(src Source) ([]*dto.MetricFamily, error) {
	var buf bytes.Buffer
	w := NewWriter(&buf, FormatProtobuf)
	src.WriteFamilies(w)
	if err := w.Flush(); err != nil {
		return nil, err
	}
	return decodeProtobuf(&buf)
}

// decodeProtobuf reads delimited MetricFamily messages until EOF.
func decodeProtobuf(r io.Reader) ([]*dto.MetricFamily, error) {
	var mfs []*dto.MetricFamily
	dec := expfmt.NewDecoder(r, expfmt.NewFormat(expfmt.TypeProtoDelim))
	for {
		mf := &dto.MetricFamily{}
		if err := dec.Decode(mf); errors.Is(err, io.EOF) {
			return mfs, nil
		} else if err != nil {
			return nil, err
		}
		mfs = append(mfs, mf)
	}
}
