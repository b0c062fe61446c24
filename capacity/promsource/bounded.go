package promsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"net"
	"net/http"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// DefaultMaxResponseBytes caps one answer's body (after gzip): a week of
// 10,000-point series for a few hundred targets fits; an endless or
// multi-GB body is refused instead of read whole.
const DefaultMaxResponseBytes = 64 << 20

// MaxAnswerValue is the largest count, rate or token sum an answer may
// hold: 1e15 requests or tokens is beyond any real window, while 1e308
// would overflow the plan's arithmetic into a negative replica count.
const MaxAnswerValue = 1e15

// answerSlack is how far outside the queried range a sample's timestamp
// may lie (Prometheus stamps instant answers with the evaluation time
// and range answers within the range; clock skew aside).
const answerSlack = 24 * time.Hour

// ErrTooLarge marks an answer over the byte cap.
var ErrTooLarge = errors.New("answer over the size cap")

// capTransport wraps every response body in a reader that fails past max
// bytes: client_golang reads the body whole before decoding it.
type capTransport struct {
	rt  http.RoundTripper
	max int64
}

func (t capTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := t.rt.RoundTrip(req)
	if err != nil {
		return nil, err
	}
	if resp.ContentLength > t.max {
		resp.Body.Close()
		return nil, fmt.Errorf("%w: Content-Length %d bytes, the cap is %d (--prometheus.max-response-bytes)", ErrTooLarge, resp.ContentLength, t.max)
	}
	resp.Body = &capBody{rc: resp.Body, left: t.max, max: t.max}
	return resp, nil
}

type capBody struct {
	rc   io.ReadCloser
	left int64 // bytes still allowed; -1 once over
	max  int64
}

func (b *capBody) Read(p []byte) (int, error) {
	if b.left < 0 {
		return 0, b.err()
	}
	if b.left < math.MaxInt64 && int64(len(p)) > b.left+1 {
		p = p[:b.left+1] // one byte past the cap tells over from exactly at it
	}
	n, err := b.rc.Read(p)
	if int64(n) > b.left {
		n, b.left = int(b.left), -1
		return n, b.err()
	}
	b.left -= int64(n)
	return n, err
}

func (b *capBody) err() error {
	return fmt.Errorf("%w: more than %d bytes (--prometheus.max-response-bytes)", ErrTooLarge, b.max)
}

func (b *capBody) Close() error { return b.rc.Close() }

// boundedAPI gives every query one deadline that covers connecting,
// reading and decoding (client_golang decodes after the context's reach:
// the caller is answered at the deadline and the abandoned decode is
// bounded by the byte cap), and checks every number in the answer.
type boundedAPI struct {
	v1.API
	timeout time.Duration
	url     string
}

type answer struct {
	v   model.Value
	w   v1.Warnings
	i   v1.Infos
	err error
}

func (a boundedAPI) Query(ctx context.Context, q string, ts time.Time, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return a.bounded(ctx, q, ts, ts, func(ctx context.Context) answer {
		v, w, i, err := a.API.Query(ctx, q, ts, opts...)
		return answer{v, w, i, err}
	})
}

func (a boundedAPI) QueryRange(ctx context.Context, q string, r v1.Range, opts ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return a.bounded(ctx, q, r.Start, r.End, func(ctx context.Context) answer {
		v, w, i, err := a.API.QueryRange(ctx, q, r, opts...)
		return answer{v, w, i, err}
	})
}

// late is the error of a query past the deadline.
func (a boundedAPI) late(q string, err error) error {
	return fmt.Errorf("query %s: no complete answer from %s within %s (connect, read and decode): %w", q, a.url, a.timeout, err)
}

func (a boundedAPI) bounded(ctx context.Context, q string, start, end time.Time, call func(context.Context) answer) (model.Value, v1.Warnings, v1.Infos, error) {
	if a.timeout > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, a.timeout)
		defer cancel()
	}
	done := make(chan answer, 1) // buffered: an abandoned call never blocks
	go func() { done <- call(ctx) }()
	var r answer
	select {
	case r = <-done:
	case <-ctx.Done():
		return nil, nil, nil, a.late(q, ctx.Err())
	}
	if r.err != nil {
		// The http.Client's Timeout is the same deadline: whichever of the
		// two fires first (a loaded machine decides), the words are ours.
		var ne net.Error
		if ctx.Err() != nil || errors.As(r.err, &ne) && ne.Timeout() {
			return nil, r.w, r.i, a.late(q, context.DeadlineExceeded)
		}
		return nil, r.w, r.i, r.err
	}
	if r.v == nil { // {"status":"success"} without data: no result type at all
		return nil, r.w, r.i, fmt.Errorf("the Prometheus server answered no result for %s", q)
	}
	if err := CheckAnswer(r.v, q, start, end); err != nil {
		return nil, r.w, r.i, fmt.Errorf("the Prometheus server %w", err)
	}
	return r.v, r.w, r.i, nil
}

// CheckAnswer refuses numbers no count, rate or token sum can be: NaN
// (except from histogram_quantile, whose NaN means no requests),
// infinities, negatives, values above MaxAnswerValue, and timestamps
// far outside [start, end]. Its error names the query.
func CheckAnswer(v model.Value, q string, start, end time.Time) error {
	nanOK := strings.HasPrefix(q, "histogram_quantile(")
	lo, hi := start.Add(-answerSlack), end.Add(answerSlack)
	check := func(t model.Time, f float64) error {
		if tt := t.Time(); tt.Before(lo) || tt.After(hi) {
			return fmt.Errorf("answered a sample at %s for %s, outside the queried %s..%s", tt.UTC().Format(time.RFC3339),
				q, start.UTC().Format(time.RFC3339), end.UTC().Format(time.RFC3339))
		}
		if math.IsNaN(f) && nanOK {
			return nil
		}
		if !(f >= 0 && f <= MaxAnswerValue) {
			return fmt.Errorf("answered %g for %s: not a count, rate or token sum in [0, %g]", f, q, MaxAnswerValue)
		}
		return nil
	}
	switch v := v.(type) {
	case model.Vector:
		for _, s := range v {
			if s.Histogram != nil {
				return fmt.Errorf("answered a native histogram for %s, want a number", q)
			}
			if err := check(s.Timestamp, float64(s.Value)); err != nil {
				return err
			}
		}
	case model.Matrix:
		for _, ss := range v {
			if len(ss.Histograms) > 0 {
				return fmt.Errorf("answered native histograms for %s, want numbers", q)
			}
			for _, p := range ss.Values {
				if err := check(p.Timestamp, float64(p.Value)); err != nil {
					return err
				}
			}
		}
	case *model.Scalar:
		return check(v.Timestamp, float64(v.Value))
	}
	return nil
}
