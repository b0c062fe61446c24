package collector

import (
	"compress/gzip"
	"context"
	"errors"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"
)

// MaxBodyBytes caps an exposition, compressed and after gunzip, so that a
// broken or hostile target cannot make us buffer without bound.
const MaxBodyBytes = 16 << 20

// acceptHeader asks for the classic text format: we parse only that, and
// some servers (vLLM's /metrics mount) answer OpenMetrics if allowed.
const acceptHeader = "text/plain;version=0.0.4;q=1,*/*;q=0.1"

// fetch GETs url within timeout and returns the lines of its
// (decompressed) body that f wants, at most maxSeries samples of them. The
// body is read as a stream: only the wanted lines are kept in memory.
func fetch(ctx context.Context, client *http.Client, url string, timeout time.Duration, limit int64, f *familyFilter, maxSeries int) ([]byte, *scrapeError) {
	ctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, &scrapeError{reasonOther, err}
	}
	req.Header.Set("Accept", acceptHeader)
	// Set explicitly so that we decompress ourselves, under the size cap.
	req.Header.Set("Accept-Encoding", "gzip")
	req.Header.Set("User-Agent", "llm-prober")
	req.Header.Set("X-Prometheus-Scrape-Timeout-Seconds", strconv.FormatFloat(timeout.Seconds(), 'f', -1, 64))

	resp, err := client.Do(req)
	if err != nil {
		return nil, classify(err)
	}
	defer func() {
		// Drain a little so the connection can be reused, but never much.
		_, _ = io.CopyN(io.Discard, resp.Body, 4096)
		_ = resp.Body.Close()
	}()
	if resp.StatusCode != http.StatusOK {
		return nil, failf(reasonHTTPStatus, "server returned HTTP status %s", resp.Status)
	}
	if resp.ContentLength > limit {
		return nil, failf(reasonTooLarge, "body of %d bytes is over the %d-byte limit", resp.ContentLength, limit)
	}
	var body io.Reader = &capReader{r: transportReader{resp.Body}, left: limit}
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(body)
		if err != nil {
			return nil, readError(err, limit)
		}
		body = &capReader{r: zr, left: limit}
	}
	out, over, err := f.filterReader(body, maxSeries)
	switch {
	case err != nil:
		return nil, readError(err, limit)
	case over:
		return nil, failf(reasonTooManySeries, "more than %d samples of mapped or passthrough families", maxSeries)
	}
	return out, nil
}

// errTooLarge is what capReader returns past its limit.
var errTooLarge = errors.New("over the size limit")

// capReader reads at most left bytes of r and fails with errTooLarge if
// r holds more: compressed and decompressed bodies each get one.
type capReader struct {
	r    io.Reader
	left int64
}

func (c *capReader) Read(p []byte) (int, error) {
	if int64(len(p)) > c.left+1 {
		p = p[:c.left+1]
	}
	n, err := c.r.Read(p)
	if int64(n) > c.left {
		return int(c.left), errTooLarge
	}
	c.left -= int64(n)
	return n, err
}

// transportError is a failure to read the response body itself, as
// opposed to a bad gzip stream in it.
type transportError struct{ err error }

func (e transportError) Error() string { return e.err.Error() }
func (e transportError) Unwrap() error { return e.err }

type transportReader struct{ r io.Reader }

func (t transportReader) Read(p []byte) (int, error) {
	n, err := t.r.Read(p)
	if err != nil && err != io.EOF {
		err = transportError{err}
	}
	return n, err
}

// readError classifies a failed body read: over the cap, the transport
// (the body broke off or timed out), or a bad gzip stream.
func readError(err error, limit int64) *scrapeError {
	var te transportError
	switch {
	case errors.Is(err, errTooLarge):
		return failf(reasonTooLarge, "body is over the %d-byte limit", limit)
	case errors.As(err, &te):
		serr := classify(te.err)
		if serr.reason == reasonOther {
			serr.reason = reasonConnect // e.g. unexpected EOF: the body broke off
		}
		return serr
	default:
		return failf(reasonDecode, "bad gzip body: %v", err)
	}
}
