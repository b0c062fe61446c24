package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/backend"
)

// badConfigs maps each testdata/bad/NAME.yml to its exact error after
// "testdata/bad/NAME.yml:" (that is, LINE: PATH: MESSAGE).
var badConfigs = map[string]string{
	"bad_api":                            `3: modules.chat.api: unknown api "embeddings" (want "chat" or "completions")`,
	"bad_duration":                       `2: global.interval: unknown unit " seconds" in duration "15 seconds"`,
	"bad_output_regex":                   "7: modules.chat.validators.output_regex: invalid regex \"(paris\": error parsing regexp: missing closing ): `(paris`",
	"bad_passthrough_regex":              "15: targets[0].server_metrics.passthrough[1]: invalid regex \"vllm:num_requests_(running\": error parsing regexp: missing closing ): `vllm:num_requests_(running`",
	"bad_role":                           `4: modules.chat.messages[0].role: role "human" must be one of [system developer user assistant]`,
	"bad_target_name":                    `7: targets[0].name: name "my target" must match ^[a-zA-Z0-9_.:-]+$`,
	"chat_no_messages":                   `2: modules.chat.messages: a chat module needs at least one message (or prompt_tokens)`,
	"chat_with_prompt":                   `3: modules.chat.prompt: prompt is for completions modules; chat modules use messages`,
	"completions_no_prompt":              `2: modules.chat.prompt: a completions module needs a prompt (or prompt_tokens)`,
	"completions_with_messages":          `5: modules.chat.messages: messages are for chat modules; completions modules use prompt`,
	"duplicate_key":                      `11: targets[0].model: duplicate field (first set at line 9)`,
	"duplicate_module_ref":               `10: targets[0].modules[1]: module "chat" is listed twice`,
	"duplicate_target_name":              `11: targets[1].name: duplicate target name "a" (first used at line 7)`,
	"empty_target":                       `6: targets[0]: target is empty`,
	"empty_target_name":                  `7: targets[0].name: a target needs a name`,
	"env_unset":                          `13: targets[0].http_client_config.authorization.credentials: environment variable LLM_PROBER_TEST_UNSET is not set`,
	"extra_body_model":                   `8: modules.chat.extra_body.model: "model" may not be overridden; it is set from the target's model`,
	"extra_body_stream":                  `7: modules.chat.extra_body.stream: "stream" may not be overridden; it is set from the prober (always true)`,
	"global_timeout_gt_interval":         `3: global.timeout: timeout 20s is greater than interval 10s`,
	"http_client_config_invalid":         `11: targets[0].http_client_config: authorization type cannot be set to "basic", use "basic_auth" instead`,
	"inline_authorization":               `13: targets[0].http_client_config.authorization.credentials: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
	"inline_bearer_token":                `12: targets[0].http_client_config.bearer_token: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
	"inline_header_secret":               `14: targets[0].http_client_config.http_headers.X-Api-Key.secrets[0]: inline secrets are not allowed; use http_headers.X-Api-Key.files or ${ENV_VAR}`,
	"inline_oauth2_secret":               `14: targets[0].http_client_config.oauth2.client_secret: inline secrets are not allowed; use oauth2.client_secret_file or ${ENV_VAR}`,
	"inline_password":                    `14: targets[0].http_client_config.basic_auth.password: inline secrets are not allowed; use basic_auth.password_file or ${ENV_VAR}`,
	"inline_server_metrics_secret":       `15: targets[0].server_metrics.http_client_config.authorization.credentials: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
	"invalid_label_name":                 `12: targets[0].labels.gpu-type: invalid label name "gpu-type" (want [a-zA-Z_][a-zA-Z0-9_]*, not starting with __)`,
	"long_target_name":                   `7: targets[0].name: name "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx" is longer than 64 characters`,
	"max_concurrent_probes_zero":         `2: global.max_concurrent_probes: max_concurrent_probes must be at least 1, got 0`,
	"max_itl_bad_duration":               `8: modules.chat.slo.max_itl: unknown unit " second" in duration "1 second"`,
	"max_itl_one_token":                  `8: modules.chat.slo.max_itl: max_itl needs max_tokens of at least 2 (got 1): one chunk has no gap between chunks`,
	"max_itl_over_e2el":                  `8: modules.chat.slo.max_itl: max_itl 2s is not below the e2el SLO 2s: a gap inside the stream can never exceed it`,
	"max_tokens_zero":                    `6: modules.chat.max_tokens: max_tokens must be at least 1, got 0`,
	"min_output_tokens_gt_max":           `8: modules.chat.validators.min_output_tokens: min_output_tokens 17 must be between 0 and max_tokens 16`,
	"min_tokens_gt_max":                  `7: modules.chat.min_tokens: min_tokens 32 must be between 0 and max_tokens 16`,
	"missing_model":                      `7: targets[0].model: a target needs a model`,
	"missing_url":                        `7: targets[0].url: a target needs a url`,
	"negative_slo":                       `7: modules.chat.slo.ttft: not a valid duration string: "-1s"`,
	"no_modules":                         `7: targets[0].modules: a target needs at least one module`,
	"no_targets":                         `1: targets: at least one target is required`,
	"reserved_label_name":                `13: targets[0].labels.model: label name "model" is reserved by llm-prober`,
	"secret_ref":                         `14: targets[0].http_client_config.basic_auth.password_ref: secret manager references are not supported; use a file or ${ENV_VAR}`,
	"server_metrics_bad_path":            `13: targets[0].server_metrics.path: path "metrics" must start with /`,
	"server_metrics_timeout_gt_interval": `14: targets[0].server_metrics.timeout: timeout 6s is greater than interval 5s`,
	"syntax_error":                       `10: did not find expected ',' or '}'`,
	"target_timeout_gt_interval":         `13: targets[0].timeout: timeout 30s is greater than interval 15s`,
	"too_many_labels":                    `11: targets[0].labels: 9 labels; at most 8 are allowed`,
	"unknown_backend":                    `11: targets[0].backend: unknown backend "ollama" (want one of ` + fmt.Sprint(backend.Names()) + ")", // package backend's list
	"unknown_http_client_field":          `14: targets[0].http_client_config.basic_auth.pasword_file: unknown field (did you mean "password_file"?)`,
	"unknown_module_field":               `4: modules.chat.messages[0].rol: unknown field (did you mean "role"?)`,
	"unknown_module_ref":                 `10: targets[0].modules[1]: unknown module "chta" (did you mean "chat"?)`,
	"unknown_target_field":               `10: targets[0].modul: unknown field (did you mean "modules"?)`,
	"unknown_top_field":                  `11: targetz: unknown field (did you mean "targets"?)`,
	"url_scheme":                         `8: targets[0].url: url "ftp://127.0.0.1:8000" must start with http:// or https://`,
	"url_unparseable":                    `8: targets[0].url: invalid url: missing ']' in host`,
	"url_query":                          `8: targets[0].url: url must not have a ?query; put credentials in http_client_config and headers in http_client_config.http_headers`,
	"url_v1":                             `8: targets[0].url: url "https://api.example.com/v1/" ends in /v1: drop it, llm-prober adds /v1/chat/completions or /v1/completions itself`,
	"url_endpoint":                       `8: targets[0].url: url "http://vllm:8000/v1/chat/completions" ends in /v1/chat/completions: drop it, llm-prober adds /v1/chat/completions or /v1/completions itself`,
	"url_userinfo":                       `8: targets[0].url: url must not contain credentials; use http_client_config.basic_auth or authorization`,
	"wrong_kind":                         `6: targets: expected a list, got "everything"`,
	"wrong_scalar_type":                  "2: global.max_concurrent_probes: cannot unmarshal !!str `lots` into int",
	"zero_interval":                      `11: targets[0].interval: interval must be greater than 0`,
	"http_client_config_type_error":      "13: targets[0].http_client_config.tls_config.insecure_skip_verify: cannot unmarshal !!str `maybe` into bool",
	"inline_proxy_connect_header":        `14: targets[0].http_client_config.proxy_connect_header.Proxy-Authorization[0]: inline secrets are not allowed; use ${ENV_VAR}`,
	"inline_tls_key":                     `14: targets[0].http_client_config.tls_config.key: inline secrets are not allowed; use tls_config.key_file or ${ENV_VAR}`,
	"unknown_module_in_map":              `6: modules.other.top_p: unknown field`,
	"cache_unknown":                      `6: modules.chat.cache: unknown cache mode "hot" (want one of [warm cold paired])`,
	"cache_salt_cold":                    `7: modules.chat.extra_body.cache_salt: cache_salt is set by the prober for cache: paired modules`,
	"prompt_tokens_small":                `3: modules.chat.prompt_tokens: prompt_tokens must be between 16 and 1048576, got 8`,
	"zero_keep_alive":                    `2: global.keep_alive_timeout: keep_alive_timeout must be greater than 0`,
	"capacity_both":                      `15: targets[0].capacity.knee_file: set knee_requests_per_second or knee_file, not both`,
	"capacity_knee_nan":                  `14: targets[0].capacity.knee_requests_per_second: knee_requests_per_second must be a rate between 1e-06 and 1e+09 req/s, got NaN`,
	"capacity_knee_zero":                 `14: targets[0].capacity.knee_requests_per_second: knee_requests_per_second must be a rate between 1e-06 and 1e+09 req/s, got 0`,
	"capacity_knee_file_missing":         `14: targets[0].capacity.knee_file: cannot read testdata/bad/no-such-sweep.json: no such file or directory`,
	"capacity_knee_file_garbled":         `14: targets[0].capacity.knee_file: testdata/bad/capacity_garbled.json:6: not JSON: want ',' or '}' after "llm_prober_workload"'s value, got 'o'`,
	"capacity_knee_file_no_knee":         `14: targets[0].capacity.knee_file: testdata/bad/capacity_no_knee.json: the sweep found no knee (no rate kept 99% of requests within the SLOs)`,
	"capacity_min_headroom_one":          `15: targets[0].capacity.min_headroom_ratio: min_headroom_ratio must be at least 0 and less than 1, got 1`,
	"capacity_no_server_metrics":         `11: targets[0].capacity: capacity needs server_metrics.enabled: true (headroom is the server's own served request rate, from its /metrics)`,
	// A value of the wrong kind where a secret may be is named, not shown.
	"secret_where_mapping_goes": `12: targets[0].http_client_config.authorization: expected a mapping, got a string`,
	"secret_where_list_goes":    `12: targets[0].http_client_config.proxy_connect_header.Proxy-Authorization: expected a list, got a string`,
	"http_client_config_string": `11: targets[0].http_client_config: expected a mapping, got a string`,
	"basic_auth_string":         `12: targets[0].http_client_config.basic_auth: expected a mapping, got a string`,
	"complex_label_key":         `11: targets[0].labels: expected a scalar key, got a list`,
	"merge_scalar":              `11: targets[0].<<: a merge key (<<) takes a mapping or a list of mappings, got a number`,
	// Secrets in service discovery configs: as in http_client_config.
	"sd_inline_password":           `11: target_discovery[0].http_sd_configs[0].basic_auth.password: inline secrets are not allowed; use basic_auth.password_file or ${ENV_VAR}`,
	"sd_inline_credentials":        `11: target_discovery[0].kubernetes_sd_configs[0].authorization.credentials: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
	"sd_inline_oauth2_secret":      `12: target_discovery[0].kubernetes_sd_configs[0].oauth2.client_secret: inline secrets are not allowed; use oauth2.client_secret_file or ${ENV_VAR}`,
	"sd_secret_where_mapping_goes": `9: target_discovery[0].http_sd_configs[0].authorization: expected a mapping, got a string`,
	"unknown_header_field":         `14: targets[0].http_client_config.http_headers.X-Api-Key.valuez: unknown field (did you mean "values"?)`,
}

// No error shows a secret: every secret in testdata/bad and
// testdata/errors holds "SECRET", and so do these values of the wrong kind
// where a secret may be.
func TestErrorsShowNoSecrets(t *testing.T) {
	const head = "modules: {chat: {messages: [{role: user, content: hi}]}}\n"
	const target = "targets: [{name: a, url: 'http://127.0.0.1:8000', model: m, modules: [chat], "
	const sd = "target_discovery: [{name: p, template: {modules: [chat]}, "
	inline := []string{
		target + "http_client_config: {authorization: Bearer sk-SECRET}}]",
		target + "http_client_config: {proxy_connect_header: {X: pw-SECRET}}}]",
		target + "http_client_config: {oauth2: {proxy_connect_header: {X: {a: pw-SECRET}}}}}]",
		target + "http_client_config: {basic_auth: alice:pw-SECRET}}]",
		target + "http_client_config: {http_headers: {X: {secrets: sk-SECRET}}}}]",
		target + "http_client_config: {http_headers: {X: sk-SECRET}}}]",
		target + "http_client_config: sk-SECRET}]",
		target + "server_metrics: {http_client_config: [sk-SECRET]}}]",
		target + "http_client_config: {tls_config: sk-SECRET}}]",
		target + "http_client_config: {<<: sk-SECRET}}]",
		sd + "http_sd_configs: [{url: 'http://x', authorization: Bearer sk-SECRET}]}]",
		sd + "http_sd_configs: sk-SECRET}]",
		sd + "http_sd_configs: [sk-SECRET]}]",
		sd + "kubernetes_sd_configs: [{role: pod, basic_auth: u:pw-SECRET}]}]",
		sd + "http_sd_configs: [{url: 'http://x', basic_auth: {username: u, password: pw-SECRET}}]}]",
		// A type's own error may quote a URL it could not parse.
		target + "http_client_config: {proxy_url: 'http://u:pw-SECRET@h:x'}}]",
		target + "http_client_config: {proxy_url: 'http://u:pw/SECRET@h'}}]",
		sd + "http_sd_configs: [{url: 'http://u:pw-SECRET@h:x'}]}]",
		sd + "kubernetes_sd_configs: [{role: pod, api_server: 'http://u:pw-SECRET@h:x'}]}]",
	}
	var files []string
	for _, dir := range []string{"testdata/bad", "testdata/errors"} {
		fs, err := filepath.Glob(dir + "/*.yml")
		if err != nil || len(fs) == 0 {
			t.Fatal(dir, err)
		}
		files = append(files, fs...)
	}
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		inline = append(inline, string(data))
	}
	for i, src := range inline {
		data := []byte(src)
		if i < len(inline)-len(files) {
			data = []byte(head + src + "\n")
		}
		_, err := Load(data, "f.yml")
		if err == nil {
			t.Errorf("%s: loads", src)
		} else if strings.Contains(err.Error(), "SECRET") {
			t.Errorf("error shows a secret:\n%s\nfrom\n%s", err, src)
		}
	}
}

func TestBadConfigs(t *testing.T) {
	os.Unsetenv("LLM_PROBER_TEST_UNSET")
	forEachTestdata(t, "testdata/bad", badConfigs, func(t *testing.T, f, want string) {
		want = f + ":" + want
		_, err := LoadFile(f)
		if err == nil {
			t.Fatalf("got no error, want %q", want)
		}
		if err.Error() != want {
			t.Errorf("wrong error\n got: %s\nwant: %s", err, want)
		}
		var ce *Error
		if !errors.As(err, &ce) || ce.Line < 1 {
			t.Errorf("error %T is not a *Error with a line", err)
		}
	})
}
