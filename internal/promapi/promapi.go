// Package promapi is the little of Prometheus's HTTP API that the
// end-to-end tests and the alert drill read: raw results and alerts.
package promapi

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"time"
)

// Client queries the Prometheus at Base (http://host:port).
type Client struct{ Base string }

// Get calls an API path and returns the data of a successful answer.
func (c Client) Get(ctx context.Context, path string, params url.Values) (json.RawMessage, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, c.Base+path+"?"+params.Encode(), nil)
	if err != nil {
		return nil, err
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	var r struct {
		Status    string          `json:"status"`
		Data      json.RawMessage `json:"data"`
		ErrorType string          `json:"errorType"`
		Error     string          `json:"error"`
	}
	if err := json.Unmarshal(body, &r); err != nil {
		return nil, fmt.Errorf("%s: HTTP %d: %.200s", path, resp.StatusCode, body)
	}
	if r.Status != "success" {
		return nil, fmt.Errorf("%s: %s: %s", path, r.ErrorType, r.Error)
	}
	return r.Data, nil
}

// Alert is one pending or firing alert.
type Alert struct {
	Labels   map[string]string `json:"labels"`
	State    string            `json:"state"`
	ActiveAt time.Time         `json:"activeAt"`
}

// Alerts lists the pending and firing alerts.
func (c Client) Alerts(ctx context.Context) ([]Alert, error) {
	data, err := c.Get(ctx, "/api/v1/alerts", nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Alerts []Alert `json:"alerts"`
	}
	err = json.Unmarshal(data, &res)
	return res.Alerts, err
}
