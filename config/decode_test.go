package config

import (
	"errors"
	"strings"
	"testing"

	promcfg "github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

// Each testdata/errors file has several errors: Load reports every one, as
// FILE:LINE: PATH: MESSAGE, in line order.
func TestEveryErrorReported(t *testing.T) {
	for name, want := range map[string][]string{
		// Decoding errors: yaml.v3's type errors, a type's own UnmarshalYAML
		// (duration, regexp), secrets, duplicates and unknown fields.
		"decode": {
			`4: global.interval: unknown unit " seconds" in duration "15 seconds"`,
			"5: global.max_concurrent_probes: cannot unmarshal !!str `lots` into int",
			`9: modules.chat.messages[0].rol: unknown field (did you mean "role"?)`,
			"12: modules.chat.validators.output_regex: invalid regex \"(paris\": error parsing regexp: missing closing ): `(paris`",
			`13: targetz: unknown field (did you mean "targets"?)`,
			`21: targets[0].http_client_config.authorization.credentials: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
			`23: targets[0].http_client_config.tls_config.insecure_skip_verfy: unknown field (did you mean "insecure_skip_verify"?)`,
			`27: targets[1].modules: expected a list, got "chat"`,
			`31: targets[2].model: duplicate field (first set at line 30)`,
		},
		// Validation errors, once the file decodes.
		"check": {
			`4: global.timeout: timeout 20s is greater than interval 10s`,
			`7: modules.chat.api: unknown api "embeddings" (want "chat" or "completions")`,
			`8: modules.chat.max_tokens: max_tokens must be at least 1, got 0`,
			`10: targets[0].model: a target needs a model`,
			`11: targets[0].url: url "http://127.0.0.1:8000/v1" ends in /v1: drop it, llm-prober adds /v1/chat/completions or /v1/completions itself`,
			`12: targets[0].modules[0]: unknown module "chatt" (did you mean "chat"?)`,
			`13: targets[1].name: duplicate target name "a" (first used at line 10)`,
			`17: targets[1].labels.model: label name "model" is reserved by llm-prober`,
		},
		// A bad merge key (<<) does not hide the other errors.
		"merge": {
			`11: targets[0].bogus: unknown field`,
			`12: targets[0].interval: unknown unit " seconds" in duration "5 seconds"`,
			`14: targets[0].http_client_config.bearer_token: inline secrets are not allowed; use authorization.credentials_file or ${ENV_VAR}`,
			`15: targets[0].<<[0]: a merge key (<<) takes mappings, got a number`,
			`16: targets[1].<<[1]: a merge key (<<) takes mappings, got a list`,
		},
		"keys": {
			`6: modules.chat.bogus: unknown field`,
			`8: modules.chat.extra_body.x: expected a scalar key, got a list`,
			`15: targets[0].labels: expected a scalar key, got a mapping`,
		},
		"aliasing": {
			`3: document contains excessive aliasing`,
			`6: modules.chat.bogus: unknown field`,
			`19: targets[0].interval: unknown unit " seconds" in duration "5 seconds"`,
		},
		// Alike errors on one line (flow style), each at its own value.
		"flow": {
			`3: targets[0].foo: unknown field`,
			`3: targets[1].foo: unknown field`,
		},
		// Unknown fields inside prometheus/common's HTTPClientConfig, which
		// decodes itself: yaml.v3's KnownFields reaches them.
		"http_client_config": {
			`11: targets[0].http_client_config.follow_redirect: unknown field (did you mean "follow_redirects"?)`,
			`16: targets[0].http_client_config.oauth2.tls_config.ca_fil: unknown field (did you mean "ca_file"?)`,
			`19: targets[0].server_metrics.http_client_config.basic_auth.pasword_file: unknown field (did you mean "password_file"?)`,
		},
		// And inside the other types with an UnmarshalYAML of their own.
		"custom_unmarshalers": {
			`10: target_discovery[0].file_sd_configs[0].refresh_intervall: unknown field (did you mean "refresh_interval"?)`,
			`11: target_discovery[0].relabel_config: unknown field (did you mean "relabel_configs"?)`,
			`15: target_discovery[0].relabel_configs[0].sourc_labels: unknown field (did you mean "source_labels"?)`,
		},
	} {
		t.Run(name, func(t *testing.T) {
			file := "testdata/errors/" + name + ".yml"
			_, err := LoadFile(file)
			if err == nil {
				t.Fatal("no error")
			}
			for i := range want {
				want[i] = file + ":" + want[i]
			}
			if got := err.Error(); got != strings.Join(want, "\n") {
				t.Errorf("got\n%s\nwant\n%s", got, strings.Join(want, "\n"))
			}
			var ce *Error
			if !errors.As(err, &ce) || ce.Line < 1 {
				t.Errorf("%T holds no *Error", err)
			}
		})
	}
}

// The loader relies on yaml.v3 keeping KnownFields below a type's own
// v2-style UnmarshalYAML(func(any) error), as prometheus/common's have; a
// v3-style UnmarshalYAML(*yaml.Node) that calls node.Decode loses it.
func TestKnownFieldsBelowUnmarshalers(t *testing.T) {
	strict := func(src string, v any) error {
		d := yaml.NewDecoder(strings.NewReader(src))
		d.KnownFields(true)
		return d.Decode(v)
	}
	var hc struct {
		H promcfg.HTTPClientConfig `yaml:"h"`
	}
	err := strict("h:\n  basic_auth: {username: u, pasword: x}\n", &hc)
	if err == nil || !strings.Contains(err.Error(), "line 2: field pasword not found") {
		t.Errorf("HTTPClientConfig (v2-style): got %v, want an unknown field error", err)
	}
	var v struct {
		V v3Style `yaml:"v"`
	}
	if err := strict("v: {a: 1, b: 2}\n", &v); err != nil {
		t.Errorf("v3-style: got %v; if yaml.v3 now keeps KnownFields here too, update the loader's comment", err)
	}
}

type v3Style struct{ A int }

func (v *v3Style) UnmarshalYAML(n *yaml.Node) error {
	type plain v3Style
	return n.Decode((*plain)(v))
}
