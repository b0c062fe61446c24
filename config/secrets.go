package config

import (
	"fmt"
	"os"
	"regexp"
	"strings"

	"gopkg.in/yaml.v3"
)

// Secrets may come only from files or the environment, so that a config
// file can be committed, shared and shown (/config, logs) without leaking
// credentials. secretFields lists the inline secret fields of
// HTTPClientConfig ("*" matches any key, "[]" any list index) and the file
// field to use instead.
var secretFields = []struct {
	pattern []string
	alt     string // %s is replaced by the key matched by "*"
}{
	{[]string{"basic_auth", "password"}, "basic_auth.password_file"},
	{[]string{"authorization", "credentials"}, "authorization.credentials_file"},
	{[]string{"bearer_token"}, "authorization.credentials_file"},
	{[]string{"oauth2", "client_secret"}, "oauth2.client_secret_file"},
	{[]string{"oauth2", "client_certificate_key"}, "oauth2.client_certificate_key_file"},
	{[]string{"tls_config", "key"}, "tls_config.key_file"},
	{[]string{"oauth2", "tls_config", "key"}, "oauth2.tls_config.key_file"},
	{[]string{"http_headers", "*", "secrets", "[]"}, "http_headers.%s.files"},
	{[]string{"proxy_connect_header", "*", "[]"}, ""},
	{[]string{"oauth2", "proxy_connect_header", "*", "[]"}, ""},
}

// envRefRE is the only accepted form of an environment reference.
var envRefRE = regexp.MustCompile(`^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$`)

// secrets replaces, in the http_client_config node n (a copy), every
// ${ENV} secret by its value; inline literal secrets and secret manager
// references (*_ref, no manager is configured) are errors. It reports
// whether there were none.
func (l *loader) secrets(n *yaml.Node, rel []string, path string) bool {
	fail := func(n *yaml.Node, path, msg string) bool {
		l.errs = append(l.errs, &Error{File: l.file, Line: n.Line, Path: path, Msg: msg})
		return false
	}
	ok := true
	switch n.Kind {
	case yaml.MappingNode:
		for _, p := range pairs(n) {
			fpath := join(path, p.k.Value)
			if strings.HasSuffix(p.k.Value, "_ref") {
				ok = fail(p.k, fpath, "secret manager references are not supported; use a file or ${ENV_VAR}")
			} else if !l.secrets(p.v, append(rel[:len(rel):len(rel)], p.k.Value), fpath) {
				ok = false
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if !l.secrets(item, append(rel[:len(rel):len(rel)], "[]"), index(path, i)) {
				ok = false
			}
		}
	case yaml.ScalarNode:
		alt, secret := secretAlt(rel)
		if !secret || isNull(n) || n.Value == "" {
			return true
		}
		m := envRefRE.FindStringSubmatch(n.Value)
		if m == nil {
			hint := "${ENV_VAR}"
			if alt != "" {
				hint = alt + " or " + hint
			}
			return fail(n, path, "inline secrets are not allowed; use "+hint)
		}
		val, _ := os.LookupEnv(m[1])
		if val == "" {
			return fail(n, path, fmt.Sprintf("environment variable %s is not set", m[1]))
		}
		n.Value, n.Tag, n.Style = val, "!!str", 0
	}
	return ok
}

// secretAlt reports whether rel is a secret field and its file alternative.
func secretAlt(rel []string) (string, bool) {
next:
	for _, f := range secretFields {
		if len(f.pattern) != len(rel) {
			continue
		}
		star := ""
		for i, p := range f.pattern {
			switch {
			case p == "*":
				star = rel[i]
			case p != rel[i]:
				continue next
			}
		}
		if strings.Contains(f.alt, "%s") {
			return fmt.Sprintf(f.alt, star), true
		}
		return f.alt, true
	}
	return "", false
}
