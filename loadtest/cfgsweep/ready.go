package cfgsweep

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"
)

// Bounds of one readiness probe: a server that answers slowly or with a
// huge body is not ready, and never holds the wait past its deadline.
const (
	probeTimeout = 5 * time.Second
	maxProbeBody = 1 << 20
)

// waitReady polls /health and /v1/models until both answer 200 (the
// second with at least one model), the deadline passes, ctx ends or the
// server exits (exited closes).
func waitReady(ctx context.Context, client *http.Client, base string, deadline time.Duration, exited <-chan struct{}) error {
	ctx, cancel := context.WithTimeout(ctx, deadline)
	defer cancel()
	wait := 100 * time.Millisecond
	for {
		err := probe(ctx, client, base)
		if err == nil {
			select {
			case <-exited: // whatever answered is not our server (one that took its port)
				return fmt.Errorf("the server exited before it was ready")
			default:
				return nil
			}
		}
		last := err.Error()
		t := time.NewTimer(wait)
		select {
		case <-exited:
			t.Stop()
			return fmt.Errorf("the server exited before it was ready")
		case <-ctx.Done():
			t.Stop()
			if ctx.Err() == context.DeadlineExceeded {
				return fmt.Errorf("not ready within %s (--server-ready-timeout): %s", deadline, last)
			}
			return ctx.Err()
		case <-t.C:
		}
		wait = min(wait*2, time.Second)
	}
}

// probe is one try: both endpoints, each within probeTimeout.
func probe(ctx context.Context, client *http.Client, base string) error {
	if _, err := get(ctx, client, base+"/health"); err != nil {
		return err
	}
	body, err := get(ctx, client, base+"/v1/models")
	if err != nil {
		return err
	}
	var models struct {
		Data []json.RawMessage `json:"data"`
	}
	if err := json.Unmarshal(body, &models); err != nil {
		return fmt.Errorf("/v1/models: not a model list: %v", err)
	}
	if len(models.Data) == 0 {
		return fmt.Errorf("/v1/models: no model served yet")
	}
	return nil
}

func get(ctx context.Context, client *http.Client, url string) ([]byte, error) {
	ctx, cancel := context.WithTimeout(ctx, probeTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	resp, err := client.Do(req)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path(url), err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(io.LimitReader(resp.Body, maxProbeBody+1))
	if err != nil {
		return nil, fmt.Errorf("%s: %v", path(url), err)
	}
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("%s: HTTP %d", path(url), resp.StatusCode)
	}
	if len(body) > maxProbeBody {
		return nil, fmt.Errorf("%s: answer over %d bytes", path(url), maxProbeBody)
	}
	return body, nil
}

func path(url string) string {
	if i := strings.Index(url, "://"); i >= 0 {
		if j := strings.IndexByte(url[i+3:], '/'); j >= 0 {
			return url[i+3+j:]
		}
	}
	return url
}
