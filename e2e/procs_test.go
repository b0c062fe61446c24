package e2e

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/llm-prober/llm-prober/internal/promapi"
	"github.com/llm-prober/llm-prober/internal/testutil"
)

// requireE2E skips tests that build Prometheus or promtool from source
// (minutes on a cold machine) unless LLM_PROBER_E2E=1: `go test ./...`
// stays fast and needs only Go; scripts/test.sh and CI set it.
func requireE2E(t *testing.T) {
	t.Helper()
	if os.Getenv("LLM_PROBER_E2E") != "1" {
		t.Skip("builds Prometheus from tools/go.mod; set LLM_PROBER_E2E=1 (scripts/test.sh does)")
	}
}

// repoRoot is the main module's directory (the test runs in e2e/).
func repoRoot(t *testing.T) string {
	t.Helper()
	root, err := filepath.Abs("..")
	if err != nil {
		t.Fatal(err)
	}
	return root
}

// goBuild builds pkg into dir/name, running `go build` in workdir.
func goBuild(t *testing.T, workdir, pkg, out string) {
	t.Helper()
	start := time.Now()
	cmd := exec.Command("go", "build", "-o", out, pkg)
	cmd.Dir = workdir
	// Static, as released (scripts/build.sh): under the race tests' cgo
	// this would otherwise compile every dependency once more.
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("go build %s (in %s): %v\n%s", pkg, workdir, err, stderr.String())
	}
	t.Logf("built %s in %s", pkg, time.Since(start).Round(time.Second))
}

// buildProber builds ./cmd/llm-prober into dir/llm-prober.
func buildProber(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "llm-prober")
	goBuild(t, repoRoot(t), "./cmd/llm-prober", bin)
	return bin
}

// startMock starts `llm-prober mock-vllm` with args on a free address and
// waits until it serves /v1/models.
func startMock(t *testing.T, bin string, args ...string) (addr string, mock *testutil.Proc) {
	t.Helper()
	addr = testutil.FreeAddr(t)
	mock = testutil.Start(t, "mock-vllm", bin, append([]string{"mock-vllm", "--listen-address", addr}, args...)...)
	testutil.WaitHTTP(t, mock, "http://"+addr+"/v1/models", 30*time.Second)
	return addr, mock
}

// ---- Prometheus HTTP API ----

// promAPI adds the queries the tests need to the shared client.
type promAPI struct{ promapi.Client }

type sample struct {
	Metric map[string]string `json:"metric"`
	Value  [2]any            `json:"value"`
}

// instant runs an instant query and returns its vector samples (a scalar
// result comes back as one sample without labels).
func (a promAPI) instant(ctx context.Context, query string) ([]sample, error) {
	data, err := a.Get(ctx, "/api/v1/query", url.Values{"query": {query}})
	if err != nil {
		return nil, err
	}
	var res struct {
		ResultType string          `json:"resultType"`
		Result     json.RawMessage `json:"result"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, err
	}
	switch res.ResultType {
	case "vector":
		var v []sample
		err := json.Unmarshal(res.Result, &v)
		return v, err
	case "scalar":
		var s [2]any
		if err := json.Unmarshal(res.Result, &s); err != nil {
			return nil, err
		}
		return []sample{{Value: s}}, nil
	default:
		return nil, fmt.Errorf("unexpected result type %s", res.ResultType)
	}
}

// hasValue reports whether any sample has a value other than NaN (a panel
// that only gets NaN draws nothing).
func hasValue(v []sample) bool {
	for _, s := range v {
		if str, ok := s.Value[1].(string); ok && str != "NaN" {
			return true
		}
	}
	return false
}

type ruleGroup struct {
	Name  string `json:"name"`
	File  string `json:"file"`
	Rules []struct {
		Name      string `json:"name"`
		Type      string `json:"type"`
		Health    string `json:"health"`
		LastError string `json:"lastError"`
	} `json:"rules"`
}

func (a promAPI) rules(ctx context.Context) ([]ruleGroup, error) {
	data, err := a.Get(ctx, "/api/v1/rules", nil)
	if err != nil {
		return nil, err
	}
	var res struct {
		Groups []ruleGroup `json:"groups"`
	}
	err = json.Unmarshal(data, &res)
	return res.Groups, err
}

func (a promAPI) labelValues(ctx context.Context, label, match string) ([]string, error) {
	data, err := a.Get(ctx, "/api/v1/label/"+label+"/values", url.Values{"match[]": {match}})
	if err != nil {
		return nil, err
	}
	var v []string
	err = json.Unmarshal(data, &v)
	return v, err
}

func (a promAPI) exemplars(ctx context.Context, query string, since time.Time) ([]map[string]string, error) {
	data, err := a.Get(ctx, "/api/v1/query_exemplars", url.Values{
		"query": {query},
		"start": {fmt.Sprint(since.Unix())},
		"end":   {fmt.Sprint(time.Now().Unix() + 1)},
	})
	if err != nil {
		return nil, err
	}
	var res []struct {
		Exemplars []struct {
			Labels map[string]string `json:"labels"`
		} `json:"exemplars"`
	}
	if err := json.Unmarshal(data, &res); err != nil {
		return nil, err
	}
	var out []map[string]string
	for _, s := range res {
		for _, e := range s.Exemplars {
			out = append(out, e.Labels)
		}
	}
	return out, nil
}
