package serverwatch

import (
	"context"
	"encoding/json"
	"io"
	"maps"
	"net/http"
	"os"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode/utf8"

	"github.com/llm-prober/llm-prober/collector"
	"github.com/llm-prober/llm-prober/config"
	dto "github.com/prometheus/client_model/go"
)

// Bounds of what a server (or an extra endpoint) can put in a report:
// strings are cut at maxMetaString bytes, maps at maxMetaKeys entries.
const (
	maxMetaString = 256
	maxMetaKeys   = 64
	maxInfoBody   = 1 << 20
	infoTimeout   = 5 * time.Second
)

// Metadata is what makes two results comparable: which server, engine
// configuration and client machine produced them.
type Metadata struct {
	Server ServerInfo `json:"server"`
	Client ClientHost `json:"client"`
}

// ServerInfo is what the server says about itself where it exposes it.
type ServerInfo struct {
	Version string `json:"version,omitempty"`
	// Engine holds engine settings: the labels of vLLM's (SGLang's)
	// cache_config_info, and the chosen keys of SGLang's
	// /get_server_info, llama.cpp's /props and TGI's /info.
	Engine map[string]string `json:"engine_config,omitempty"`
	// Sources are the endpoints and series that answered.
	Sources []string `json:"sources,omitempty"`
}

// ClientHost is the machine that ran the load.
type ClientHost struct {
	Hostname   string    `json:"hostname"`
	OS         string    `json:"os"`
	Arch       string    `json:"arch"`
	CPUs       int       `json:"cpus"`
	GOMAXPROCS int       `json:"gomaxprocs"`
	LoadAvg    []float64 `json:"load_average,omitempty"` // 1, 5, 15 min at start (Linux)
	Version    string    `json:"llm_prober_version"`
	GoVersion  string    `json:"go_version"`
}

// infoEndpoint is a JSON endpoint a server describes itself on, and the
// keys of it worth keeping (dotted for nested objects).
type infoEndpoint struct {
	path, version string
	keys          []string
}

var infoEndpoints = []infoEndpoint{
	{"/version", "version", nil}, // vLLM
	{"/get_server_info", "version", []string{"tp_size", "dp_size", "pp_size", "mem_fraction_static", "max_running_requests", // SGLang
		"max_total_num_tokens", "chunked_prefill_size", "context_length", "kv_cache_dtype", "attention_backend", "schedule_policy",
		"page_size", "enable_mixed_chunk", "disable_radix_cache", "quantization", "dtype"}},
	{"/props", "build_info", []string{"total_slots", "default_generation_settings.n_ctx", "model_path"}}, // llama.cpp
	{"/info", "version", []string{"model_id", "model_dtype", "max_concurrent_requests", "max_input_tokens", "max_total_tokens", // TGI
		"max_batch_total_tokens", "max_batch_prefill_tokens", "waiting_served_ratio"}},
}

// engineInfo are the info series whose labels are engine settings.
var engineInfo = regexp.MustCompile(`vllm:cache_config_info|sglang:cache_config_info`)

// ServerMetadata asks t's server about itself: the JSON endpoints above
// (those that answer 200 with a JSON object; others are skipped) and the
// engine info series of its metrics. Nothing here fails a run.
func ServerMetadata(ctx context.Context, client *http.Client, t *config.Target) ServerInfo {
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	var mu sync.Mutex
	var wg sync.WaitGroup
	info := ServerInfo{Engine: map[string]string{}}
	add := func(src, version string, kv map[string]string) {
		mu.Lock()
		defer mu.Unlock()
		info.Sources = append(info.Sources, src)
		if info.Version == "" && version != "" {
			info.Version = capString(version)
		}
		for _, k := range slices.Sorted(maps.Keys(kv)) {
			if len(info.Engine) < maxMetaKeys {
				info.Engine[capString(k)] = capString(kv[k])
			}
		}
	}
	base := strings.TrimRight(t.URL, "/")
	for _, ep := range infoEndpoints {
		wg.Add(1)
		go func() {
			defer wg.Done()
			obj := getJSONObject(ctx, client, base+ep.path)
			if obj == nil {
				return
			}
			kv := map[string]string{}
			for _, k := range ep.keys {
				if v, ok := scalarAt(obj, k); ok {
					kv[k] = v
				}
			}
			v, _ := scalarAt(obj, ep.version)
			if v == "" && len(kv) == 0 {
				return
			}
			add(ep.path, v, kv)
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		fams, err := collector.ScrapeFamilies(ctx, client, collector.MetricsURL(t), infoTimeout, []*regexp.Regexp{engineInfo})
		if err != nil {
			return
		}
		for _, name := range slices.Sorted(maps.Keys(fams)) {
			if ms := fams[name].GetMetric(); len(ms) > 0 {
				kv := map[string]string{}
				for _, lp := range ms[0].GetLabel() { // engine "0": the others are copies
					kv[lp.GetName()] = lp.GetValue()
				}
				add(name, "", kv)
			}
		}
	}()
	wg.Wait()
	slices.Sort(info.Sources)
	if len(info.Engine) == 0 {
		info.Engine = nil
	}
	return info
}

// getJSONObject GETs url and decodes a JSON object of at most
// maxInfoBody bytes; nil on any failure.
func getJSONObject(ctx context.Context, client *http.Client, url string) map[string]any {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil
	}
	req.Header.Set("Accept", "application/json")
	resp, err := client.Do(req)
	if err != nil {
		return nil
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil
	}
	var obj map[string]any
	if err := json.NewDecoder(io.LimitReader(resp.Body, maxInfoBody)).Decode(&obj); err != nil {
		return nil
	}
	return obj
}

// scalarAt is the string, number or boolean at a dotted key of obj.
func scalarAt(obj map[string]any, key string) (string, bool) {
	var v any = obj
	for part := range strings.SplitSeq(key, ".") {
		m, ok := v.(map[string]any)
		if !ok {
			return "", false
		}
		v = m[part]
	}
	switch x := v.(type) {
	case string:
		return x, true
	case float64:
		return strconv.FormatFloat(x, 'g', -1, 64), true
	case bool:
		return strconv.FormatBool(x), true
	}
	return "", false
}

// capString cuts s to maxMetaString bytes, on a rune boundary.
func capString(s string) string {
	if len(s) <= maxMetaString {
		return s
	}
	cut := maxMetaString
	for cut > 0 && !utf8.RuneStart(s[cut]) {
		cut--
	}
	return s[:cut] + "…"
}

// ClientMetadata describes this machine now; version is llm-prober's.
func ClientMetadata(version string) ClientHost {
	host, _ := os.Hostname()
	c := ClientHost{Hostname: capString(host), OS: runtime.GOOS, Arch: runtime.GOARCH, CPUs: runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0), Version: capString(version), GoVersion: runtime.Version()}
	if raw, err := os.ReadFile("/proc/loadavg"); err == nil {
		for _, f := range strings.Fields(string(raw))[:min(3, len(strings.Fields(string(raw))))] {
			if x, err := strconv.ParseFloat(f, 64); err == nil {
				c.LoadAvg = append(c.LoadAvg, x)
			}
		}
	}
	return c
}

// metricLabels is a series' labels as a map, cut to maxMetaKeys.
func metricLabels(m *dto.Metric) map[string]string {
	out := map[string]string{}
	for _, lp := range m.GetLabel() {
		if len(out) < maxMetaKeys {
			out[capString(lp.GetName())] = capString(lp.GetValue())
		}
	}
	return out
}
