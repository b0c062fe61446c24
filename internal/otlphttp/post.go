package otlphttp

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"

	"google.golang.org/protobuf/encoding/protowire"
)

// Post sends payload, an encoded Resource{Spans,Metrics} message, as
// field 1 of an Export*ServiceRequest, without linking the collector
// packages (their gRPC services). what names the export in errors, and
// shown is the endpoint with its credentials hidden: an error never
// carries url, which may hold them. A non-2xx answer is an error with
// its first 512 bytes.
func Post(ctx context.Context, c *http.Client, endpoint, shown, what string, headers map[string]string, payload []byte) error {
	body := protowire.AppendTag(nil, 1, protowire.BytesType)
	body = protowire.AppendBytes(body, payload)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, endpoint, bytes.NewReader(body))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s to %s: %w", what, shown, err)
	}
	req.Header.Set("Content-Type", "application/x-protobuf")
	for k, v := range headers {
		req.Header.Set(k, v)
	}
	resp, err := c.Do(req)
	if err != nil {
		var ue *url.Error // its URL would show the endpoint's credentials
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return fmt.Errorf("%s to %s: %w", what, shown, err)
	}
	defer resp.Body.Close()
	answer, _ := io.ReadAll(io.LimitReader(resp.Body, 512))
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s to %s: HTTP %d: %q", what, shown, resp.StatusCode, answer)
	}
	return nil
}
