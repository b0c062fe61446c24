package serverwatch

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/internal/testutil/mocktarget"
)

// vLLM (the mock) gives its version on /version and its cache config as
// the labels of vllm:cache_config_info.
func TestServerMetadataVLLM(t *testing.T) {
	o := mocktarget.FixedMock()
	o.Version = "0.11.1"
	_, tg, client := mocktarget.Start(t, o)
	info := ServerMetadata(t.Context(), client, tg)
	if info.Version != "0.11.1" {
		t.Errorf("version %q", info.Version)
	}
	if info.Engine["block_size"] != fmt.Sprint(o.BlockSize) || info.Engine["engine"] != "0" {
		t.Errorf("engine config %v", info.Engine)
	}
	if strings.Join(info.Sources, ",") != "/version,vllm:cache_config_info" {
		t.Errorf("sources %v", info.Sources)
	}
}

// llama.cpp's /props, SGLang's /get_server_info and TGI's /info, each
// read for its chosen keys; a body over the cap, an HTML page, a 404
// and a hostile long value are skipped or cut, never an error.
func TestServerMetadataOtherServersAndHostileBodies(t *testing.T) {
	long := strings.Repeat("é", 1000)
	for _, c := range []struct {
		name    string
		routes  map[string]string
		version string
		engine  map[string]string
	}{
		{"llama.cpp", map[string]string{"/props": `{"build_info":"b6100-1f0e3a2","total_slots":4,"model_path":"/models/q4.gguf","default_generation_settings":{"n_ctx":8192,"temperature":0.8},"chat_template":"{% huge %}"}`},
			"b6100-1f0e3a2", map[string]string{"total_slots": "4", "default_generation_settings.n_ctx": "8192", "model_path": "/models/q4.gguf"}},
		{"sglang", map[string]string{"/get_server_info": `{"version":"0.5.3","tp_size":2,"mem_fraction_static":0.88,"disable_radix_cache":false,"api_key":"sk-never","max_total_num_tokens":400000}`},
			"0.5.3", map[string]string{"tp_size": "2", "mem_fraction_static": "0.88", "disable_radix_cache": "false", "max_total_num_tokens": "400000"}},
		{"tgi", map[string]string{"/info": `{"model_id":"meta-llama/Llama-3.1-8B","version":"3.3.4","max_concurrent_requests":128,"sha":"abc"}`},
			"3.3.4", map[string]string{"model_id": "meta-llama/Llama-3.1-8B", "max_concurrent_requests": "128"}},
		{"hostile", map[string]string{
			"/version":         `{"version":"` + long + `"}`,
			"/get_server_info": `{"version":"x","tp_size":"` + strings.Repeat("a", 2<<20) + `"}`, // over 1 MiB: skipped
			"/props":           `<html>not json</html>`,
			"/metrics":         "# TYPE vllm:cache_config_info gauge\nvllm:cache_config_info{block_size=\"16\",note=\"" + long + "\"} 1\n",
		}, long[:maxMetaString], nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			ts := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				body, ok := c.routes[r.URL.Path]
				if !ok {
					http.NotFound(w, r)
					return
				}
				fmt.Fprint(w, body)
			}))
			defer ts.Close()
			tg := &config.Target{Name: "x", URL: ts.URL}
			info := ServerMetadata(t.Context(), ts.Client(), tg)
			if !strings.HasPrefix(info.Version, c.version) || len(info.Version) > maxMetaString+len("…") || !utf8.ValidString(info.Version) {
				t.Errorf("version %.40q… (%d bytes), want %.40q", info.Version, len(info.Version), c.version)
			}
			for k, v := range c.engine {
				if info.Engine[k] != v {
					t.Errorf("engine %s = %q, want %q (all: %v)", k, info.Engine[k], v, info.Engine)
				}
			}
			if _, leaked := info.Engine["api_key"]; leaked {
				t.Error("a key not on the list was kept")
			}
			if c.name == "hostile" {
				if n := info.Engine["note"]; len(n) > maxMetaString+len("…") || !utf8.ValidString(n) || info.Engine["block_size"] != "16" {
					t.Errorf("info label not cut: %d bytes; %v", len(n), info.Engine["block_size"])
				}
				if strings.Join(info.Sources, ",") != "/version,vllm:cache_config_info" {
					t.Errorf("sources %v", info.Sources)
				}
			}
		})
	}
}
