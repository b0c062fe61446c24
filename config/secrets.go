package config

import (
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Secrets may come only from files or the environment, so that a config
// file can be committed, shared and shown (/config, logs) without leaking
// credentials. secretFields matches the secret fields of HTTPClientConfig
// (paths below it, or below a *_sd_configs item, which inlines one) and
// gives the file field to use instead, if any.
var secretFields = map[*regexp.Regexp]string{}

func init() {
	for field, alt := range map[string]string{
		`basic_auth\.password`:                       "basic_auth.password_file",
		`authorization\.credentials|bearer_token`:    "authorization.credentials_file",
		`oauth2\.client_secret`:                      "oauth2.client_secret_file",
		`oauth2\.client_certificate_key`:             "oauth2.client_certificate_key_file",
		`(oauth2\.)?tls_config\.key`:                 "${1}tls_config.key_file",
		`http_headers\.(.+)\.secrets\[\d+\]`:         "http_headers.${1}.files",
		`(oauth2\.)?proxy_connect_header\..+\[\d+\]`: "",
	} {
		secretFields[regexp.MustCompile(`^(?:`+field+`)$`)] = alt
	}
}

// envRefRE is the only accepted form of an environment reference.
var envRefRE = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// secrets replaces, in the http_client_config node hc (a copy), every
// ${ENV} secret by its value; inline literal secrets and secret manager
// references (*_ref, no manager is configured) are errors.
func (l *loader) secrets(hc *yaml.Node, path string) {
	walk(hc, nil, "", 0, func(e *entry) bool {
		v, fpath := resolve(*e.slot), join(path, e.path)
		if e.key != nil && strings.HasSuffix(e.key.Value, "_ref") {
			l.errorf(e.line, fpath, "secret manager references are not supported; use a file or ${ENV_VAR}")
			return false
		}
		alt, secret := secretAlt(e.path)
		if !secret || v.Kind != yaml.ScalarNode || isNull(v) || v.Value == "" {
			return true
		}
		m := envRefRE.FindStringSubmatch(v.Value)
		if m == nil {
			hint := "${ENV_VAR}"
			if alt != "" {
				hint = alt + " or " + hint
			}
			l.errorf(v.Line, fpath, "inline secrets are not allowed; use %s", hint)
		} else if val := os.Getenv(m[1]); val == "" {
			l.errorf(v.Line, fpath, "environment variable %s is not set", m[1])
		} else {
			v.Value, v.Tag, v.Style = val, "!!str", 0
		}
		return false
	})
}

// secretAlt reports whether path (below an http_client_config) is a secret
// field, and the file field to use instead.
func secretAlt(path string) (string, bool) {
	for re, alt := range secretFields {
		if re.MatchString(path) {
			return re.ReplaceAllString(path, alt), true
		}
	}
	return "", false
}
