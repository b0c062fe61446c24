package collector

import (
	"bytes"
	"compress/gzip"
	"context"
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

// fetch GETs url within timeout and returns the (decompressed) body.
func fetch(ctx context.Context, client *http.Client, url string, timeout time.Duration, limit int64) ([]byte, *scrapeError) {
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
	body, serr := readLimited(resp.Body, limit)
	if serr != nil {
		return nil, serr
	}
	if strings.EqualFold(resp.Header.Get("Content-Encoding"), "gzip") {
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, failf(reasonDecode, "bad gzip body: %v", err)
		}
		body, serr = readLimited(zr, limit)
		if serr != nil {
			if serr.reason == reasonConnect {
				serr.reason = reasonDecode // the bytes were all there; the stream is bad
			}
			return nil, serr
		}
	}
	return body, nil
}

// readLimited reads r fully unless it holds more than limit bytes.
func readLimited(r io.Reader, limit int64) ([]byte, *scrapeError) {
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		serr := classify(err)
		if serr.reason == reasonOther {
			serr.reason = reasonConnect // e.g. unexpected EOF: the body broke off
		}
		return nil, serr
	}
	if int64(len(body)) > limit {
		return nil, failf(reasonTooLarge, "body is over the %d-byte limit", limit)
	}
	return body, nil
}
