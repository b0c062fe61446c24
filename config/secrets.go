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

// resolveSecrets returns a copy of the http_client_config node n with every
// ${ENV} secret replaced by its value; inline literal secrets and secret
// manager references (*_ref, no manager is configured) are errors.
func (d *decoder) resolveSecrets(n *yaml.Node, path string) (*yaml.Node, error) {
	n = copyNode(n)
	return n, d.walkSecrets(n, nil, path)
}

func (d *decoder) walkSecrets(n *yaml.Node, rel []string, path string) error {
	switch n.Kind {
	case yaml.MappingNode:
		for _, p := range pairs(n) {
			fpath := join(path, p.k.Value)
			if strings.HasSuffix(p.k.Value, "_ref") {
				return &Error{File: d.file, Line: p.k.Line, Path: fpath,
					Msg: "secret manager references are not supported; use a file or ${ENV_VAR}"}
			}
			if err := d.walkSecrets(p.v, append(rel, p.k.Value), fpath); err != nil {
				return err
			}
		}
	case yaml.SequenceNode:
		for i, item := range n.Content {
			if err := d.walkSecrets(item, append(rel, "[]"), index(path, i)); err != nil {
				return err
			}
		}
	case yaml.ScalarNode:
		alt, ok := secretAlt(rel)
		if !ok || isNull(n) || n.Value == "" {
			return nil
		}
		m := envRefRE.FindStringSubmatch(n.Value)
		if m == nil {
			hint := "${ENV_VAR}"
			if alt != "" {
				hint = alt + " or " + hint
			}
			return &Error{File: d.file, Line: n.Line, Path: path,
				Msg: "inline secrets are not allowed; use " + hint}
		}
		val, _ := os.LookupEnv(m[1])
		if val == "" {
			return &Error{File: d.file, Line: n.Line, Path: path,
				Msg: fmt.Sprintf("environment variable %s is not set", m[1])}
		}
		n.Value, n.Tag, n.Style = val, "!!str", 0
	}
	return nil
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
