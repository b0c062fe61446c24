package bench

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/llm-prober/llm-prober/backend"
	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/prober"
	commoncfg "github.com/prometheus/common/config"
)

// benchKeepAlive keeps bench connections open between a user's requests.
const benchKeepAlive = 90 * time.Second

// benchTarget resolves --url or --config.file/--target into a target and
// its probe client (the target's auth and TLS; kernel receive times).
func (b *Config) benchTarget(ctx context.Context) (*config.Target, *http.Client, error) {
	var t *config.Target
	switch {
	case b.ConfigFile != "" || b.Target != "":
		if b.ConfigFile == "" || b.Target == "" {
			return nil, nil, badFile{errors.New("--config.file and --target go together")}
		}
		cfg, err := config.LoadFile(b.ConfigFile)
		if err != nil {
			return nil, nil, badFile{err}
		}
		for _, ct := range cfg.Targets {
			if ct.Name == b.Target {
				t = ct
			}
		}
		if t == nil {
			return nil, nil, badFile{fmt.Errorf("no target %q in %s", b.Target, b.ConfigFile)}
		}
		if b.URL != "" {
			return nil, nil, badFile{errors.New("--url and --target are exclusive")}
		}
		cp := *t
		t = &cp
		if b.Model != "" {
			t.Model = b.Model
		}
	case b.URL != "":
		hc := commoncfg.DefaultHTTPClientConfig
		hc.FollowRedirects = false
		switch {
		case b.APIKeyFile != "":
			hc.Authorization = &commoncfg.Authorization{Type: "Bearer", CredentialsFile: b.APIKeyFile}
		case os.Getenv("OPENAI_API_KEY") != "":
			hc.Authorization = &commoncfg.Authorization{Type: "Bearer", Credentials: commoncfg.Secret(os.Getenv("OPENAI_API_KEY"))}
		}
		if err := hc.Validate(); err != nil {
			return nil, nil, badFile{err}
		}
		t = &config.Target{Name: "bench", URL: strings.TrimSuffix(b.URL, "/"), Model: b.Model,
			Backend: backend.Auto, HTTPClientConfig: hc}
	default:
		return nil, nil, badFile{errors.New("give --url, or --config.file and --target")}
	}
	client, err := prober.NewLoadClient(t, benchKeepAlive)
	if err != nil {
		return nil, nil, fmt.Errorf("HTTP client: %w", err)
	}
	if t.Model == "" {
		if t.Model, err = firstModel(ctx, client, t.URL); err != nil {
			return nil, nil, err
		}
	}
	return t, client, nil
}

// maxModelsBody bounds the /v1/models answer read for the model name,
// maxModelName the name (it goes into every request and label).
const (
	maxModelsBody = 4 << 20
	maxModelName  = 1024
)

// firstModel asks /v1/models for the served model, as vllm bench does.
func firstModel(ctx context.Context, client *http.Client, base string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, base+"/v1/models", nil)
	if err != nil {
		return "", err
	}
	resp, err := client.Do(req)
	if err != nil {
		return "", fmt.Errorf("no --model given and /v1/models failed: %w", err)
	}
	defer resp.Body.Close()
	var list struct {
		Data []struct {
			ID string `json:"id"`
		} `json:"data"`
	}
	// Capped: a server that streams without end costs 4 MiB, not memory
	// until the deadline.
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxModelsBody)).Decode(&list); err != nil || len(list.Data) == 0 || resp.StatusCode != http.StatusOK {
		return "", fmt.Errorf("no --model given and /v1/models (HTTP %d) names none within %d MiB", resp.StatusCode, maxModelsBody>>20)
	}
	if id := list.Data[0].ID; id == "" || len(id) > maxModelName {
		return "", fmt.Errorf("no --model given and /v1/models names a model of %d bytes (want 1 to %d): give --model", len(id), maxModelName)
	}
	return list.Data[0].ID, nil
}
