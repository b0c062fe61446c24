package promsource

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"path"
	"strconv"
	"strings"
	"time"

	v1 "github.com/prometheus/client_golang/api/prometheus/v1"
	"github.com/prometheus/common/model"
)

// queryClient runs the query API's two calls itself, decoding the answer
// as it streams in (decodeAnswer): client_golang's client buffers the
// whole body first. The request is client_golang's: a form POST, GET if
// the server refuses POST, with the source's timeout as the server's
// evaluation timeout.
type queryClient struct {
	client  *http.Client
	base    *url.URL
	timeout time.Duration
	budget  int64 // bytes the decoder may allocate
}

func (c *queryClient) query(ctx context.Context, q string, ts time.Time) (model.Value, v1.Warnings, v1.Infos, error) {
	form := url.Values{"query": {q}, "time": {formatTime(ts)}}
	return c.do(ctx, "/api/v1/query", form)
}

func (c *queryClient) queryRange(ctx context.Context, q string, r v1.Range) (model.Value, v1.Warnings, v1.Infos, error) {
	form := url.Values{"query": {q}, "start": {formatTime(r.Start)}, "end": {formatTime(r.End)},
		"step": {strconv.FormatFloat(r.Step.Seconds(), 'f', -1, 64)}}
	return c.do(ctx, "/api/v1/query_range", form)
}

func (c *queryClient) do(ctx context.Context, endpoint string, form url.Values) (model.Value, v1.Warnings, v1.Infos, error) {
	if c.timeout > 0 {
		form.Set("timeout", model.Duration(c.timeout).String())
	}
	u := *c.base
	u.Path = path.Join(u.Path, endpoint)
	resp, err := c.send(ctx, http.MethodPost, &u, form)
	if err == nil && (resp.StatusCode == http.StatusMethodNotAllowed || resp.StatusCode == http.StatusNotImplemented) {
		_ = resp.Body.Close()
		resp, err = c.send(ctx, http.MethodGet, &u, form)
	}
	if err != nil {
		return nil, nil, nil, err
	}
	defer func() {
		_, _ = io.CopyN(io.Discard, resp.Body, 4<<10) // a short rest, to reuse the connection
		_ = resp.Body.Close()
	}()
	// As client_golang: 2xx and Prometheus's own error codes carry a JSON
	// answer; any other status is an error of its own.
	switch code := resp.StatusCode; {
	case code/100 == 2, code == http.StatusBadRequest, code == http.StatusUnprocessableEntity, code == http.StatusServiceUnavailable:
	default:
		return nil, nil, nil, fmt.Errorf("answered HTTP status %s", resp.Status)
	}
	return decodeAnswer(resp.Body, c.budget)
}

func (c *queryClient) send(ctx context.Context, method string, u *url.URL, form url.Values) (*http.Response, error) {
	var body io.Reader
	if method == http.MethodPost {
		body = strings.NewReader(form.Encode())
	} else {
		q := *u
		q.RawQuery = form.Encode()
		u = &q
	}
	req, err := http.NewRequestWithContext(ctx, method, u.String(), body)
	if err != nil {
		return nil, err
	}
	if method == http.MethodPost {
		req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	}
	return c.client.Do(req)
}

// formatTime is client_golang's: seconds with a fraction.
func formatTime(t time.Time) string {
	return strconv.FormatFloat(float64(t.Unix())+float64(t.Nanosecond())/1e9, 'f', -1, 64)
}

// streamAPI is client_golang's API with its two query calls replaced by
// queryClient's. Their options are not read (client_golang keeps them
// unexported): the source's timeout stands for v1.WithTimeout, the only
// option its callers pass.
type streamAPI struct {
	v1.API
	qc *queryClient
}

func (a streamAPI) Query(ctx context.Context, q string, ts time.Time, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return a.qc.query(ctx, q, ts)
}

func (a streamAPI) QueryRange(ctx context.Context, q string, r v1.Range, _ ...v1.Option) (model.Value, v1.Warnings, v1.Infos, error) {
	return a.qc.queryRange(ctx, q, r)
}
