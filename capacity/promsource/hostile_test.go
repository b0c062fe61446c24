package promsource

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// hostileSource is a source with small caps on a loopback server.
func hostileSource(t testing.TB, h http.HandlerFunc, maxBytes int64, timeout time.Duration) *Source {
	t.Helper()
	srv := httptest.NewServer(h)
	t.Cleanup(srv.Close)
	f := &Flags{URL: srv.URL, Window: model.Duration(time.Hour), Timeout: timeout,
		RateInterval: model.Duration(5 * time.Minute), MaxResponseBytes: maxBytes, End: "2026-11-20T00:00:00Z"}
	return flagsSource(t, f)
}

// An endless body (and one announced larger than the cap) is refused at
// the cap, long before the minute's timeout: it used to be read until
// the timeout, 4 GiB in 7.7 s.
func TestAnswerOverSizeCap(t *testing.T) {
	endless := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"matrix","result":[`)
		el := strings.Repeat(`{"metric":{"target":"a"},"values":[[1795132800,"1"]]},`, 1000)
		for r.Context().Err() == nil {
			if _, err := fmt.Fprint(w, el); err != nil {
				return
			}
		}
	}
	s := hostileSource(t, endless, 1<<20, time.Hour)
	if _, err := s.ServedRates(context.Background()); !errors.Is(err, ErrTooLarge) || strings.Contains(err.Error(), "\n") {
		t.Errorf("endless body: %v, want a one-line size-cap error", err)
	}
	announced := func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Length", "400000000")
		w.WriteHeader(http.StatusOK)
	}
	s = hostileSource(t, announced, 1<<20, time.Hour)
	if _, err := s.ServedRates(context.Background()); !errors.Is(err, ErrTooLarge) {
		t.Errorf("Content-Length 400 MB: %v, want a size-cap error", err)
	}
}

// A body trickled a few bytes at a time without end meets the one
// deadline (connect, read and decode), not the cap.
func TestAnswerTrickledMeetsDeadline(t *testing.T) {
	trickle := func(w http.ResponseWriter, r *http.Request) {
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[`)
		for r.Context().Err() == nil {
			fmt.Fprint(w, " ")
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	}
	s := hostileSource(t, trickle, 1<<20, 300*time.Millisecond)
	_, err := s.ServedRates(context.Background())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "within 300ms (connect, read and decode)") {
		t.Errorf("trickled body: %v, want the deadline", err)
	}
}

// clientTimeout is an API whose http.Client gave up first: its Timeout
// is the deadline too, and on a loaded machine it may fire before the
// context's.
type clientTimeout struct{ v1.API }

func (clientTimeout) Query(context.Context, string, time.Time, ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return nil, nil, nil, &url.Error{Op: "Get", URL: "http://127.0.0.1:1/api/v1/query", Err: timeoutErr{}}
}

type timeoutErr struct{}

func (timeoutErr) Error() string {
	return "net/http: request canceled (Client.Timeout exceeded while reading body)"
}
func (timeoutErr) Timeout() bool   { return true }
func (timeoutErr) Temporary() bool { return true }

// Whichever deadline fires first, the error is the same one line (the
// soak harness's trickle case read Client.Timeout's words under load).
func TestClientTimeoutIsTheDeadline(t *testing.T) {
	a := boundedAPI{API: clientTimeout{}, timeout: time.Hour, url: "http://127.0.0.1:1"}
	_, _, _, err := a.Query(context.Background(), "up", time.Now())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "no complete answer from http://127.0.0.1:1 within 1h0m0s") {
		t.Errorf("%v, want the deadline's words", err)
	}
}

// slowDecode is an API whose answer comes only when released, however
// the context fares: client_golang decodes after its context's reach.
type slowDecode struct {
	v1.API
	release chan struct{}
}

func (s slowDecode) Query(context.Context, string, time.Time, ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	<-s.release
	return model.Vector{}, nil, nil, nil
}

// The deadline covers decoding: the caller is answered at it while a
// decode runs on (bounded by the byte cap).
func TestDeadlineCoversDecode(t *testing.T) {
	rel := make(chan struct{})
	defer close(rel)
	a := boundedAPI{API: slowDecode{release: rel}, timeout: 20 * time.Millisecond, url: "http://127.0.0.1:1"}
	_, _, _, err := a.Query(context.Background(), "up", time.Now())
	if !errors.Is(err, context.DeadlineExceeded) || !strings.Contains(err.Error(), "connect, read and decode") {
		t.Errorf("%v, want the deadline", err)
	}
}

// Numbers no count or rate can be are refused with one line naming the
// query; 1e308 used to make plan print -9223372036854775808 replicas.
func TestAnswerNumbersChecked(t *testing.T) {
	const ts = 1795132800 // 2026-11-20T00:00:00Z: the window's end
	for _, c := range []struct {
		name, matrix, want string
	}{
		{"1e308", fmt.Sprintf(`[[%d,"1e308"]]`, ts), "answered 1e+308 for max by (target)"},
		{"NaN", fmt.Sprintf(`[[%d,"NaN"]]`, ts), "answered NaN for"},
		{"+Inf", fmt.Sprintf(`[[%d,"+Inf"]]`, ts), "answered +Inf for"},
		{"-Inf", fmt.Sprintf(`[[%d,"-Inf"]]`, ts), "answered -Inf for"},
		{"negative", fmt.Sprintf(`[[%d,"-3"]]`, ts), "answered -3 for"},
		{"year 2400", `[[13569465600,"1"]]`, "answered a sample at 2400-01-01T00:00:00Z for max by (target)"},
		{"year 1970", `[[1,"1"]]`, "answered a sample at 1970-01-01T00:00:01Z"},
	} {
		s := hostileSource(t, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			fmt.Fprintf(w, `{"status":"success","data":{"resultType":"matrix","result":[{"metric":{"target":"a"},"values":%s}]}}`, c.matrix)
		}, 1<<20, time.Minute)
		_, err := s.ServedRates(context.Background())
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
	}
}

// histogram_quantile's NaN means no requests: let through, not refused.
func TestQuantileNaNAllowed(t *testing.T) {
	s := hostileSource(t, func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, `{"status":"success","data":{"resultType":"vector","result":[{"metric":{},"value":[1795132800,"NaN"]}]}}`)
	}, 1<<20, time.Minute)
	if _, err := s.Quantile(context.Background(), PromptTokens, 0.5); err != nil {
		t.Errorf("histogram_quantile NaN: %v", err)
	}
}
