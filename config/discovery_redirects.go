package config

import (
	"reflect"

	"github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"
)

// sdClient is the HTTP client config of one http_sd_configs item, with
// its path in the file. kubernetes_sd_configs have one too, but client-go
// follows redirects whatever it says, and Prometheus strips Authorization
// on a redirect to another host only when follow_redirects is true: it is
// left as Prometheus defaults it.
type sdClient struct {
	*config.HTTPClientConfig
	path string
}

var httpClientConfigType = reflect.TypeFor[config.HTTPClientConfig]()

// sdClients lists the HTTP client configs of td's discoveries. Prometheus's
// registry decodes each *_sd_configs list in order, so the k-th config of
// a name is item k of that list.
func sdClients(td *TargetDiscovery, path string) []sdClient {
	var out []sdClient
	seen := map[string]int{}
	for _, c := range td.SDConfigs {
		v := reflect.ValueOf(c)
		if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
			continue
		}
		if c.Name() != "http" {
			continue
		}
		key := c.Name() + sdSuffix
		i := seen[key]
		seen[key]++
		f := v.Elem().FieldByName("HTTPClientConfig")
		if f.IsValid() && f.Type() == httpClientConfigType && f.CanAddr() {
			out = append(out, sdClient{f.Addr().Interface().(*config.HTTPClientConfig), index(join(path, key), i)})
		}
	}
	return out
}

// recordSDRedirects notes which items of a *_sd_configs list set
// follow_redirects: the loader does not walk inside them.
func (l *loader) recordSDRedirects(e *entry) {
	list := resolve(*e.slot)
	if list.Kind != yaml.SequenceNode {
		return
	}
	for i, item := range list.Content {
		item = resolve(item)
		if item.Kind != yaml.MappingNode {
			continue
		}
		for j := 0; j+1 < len(item.Content); j += 2 {
			if k := item.Content[j]; k.Value == "follow_redirects" && !isNull(resolve(item.Content[j+1])) {
				l.lines[index(e.path, i)+".follow_redirects"] = k.Line
			}
		}
	}
}

// finishSDClients makes discovery clients follow no redirect unless the
// file says so, as probes and scrapes: Prometheus's default follows them
// to any host, credentials and headers included.
func (l *loader) finishSDClients(td *TargetDiscovery, path string) {
	for _, c := range sdClients(td, path) {
		if _, set := l.lines[c.path+".follow_redirects"]; !set {
			c.FollowRedirects = false
		}
	}
}

// sendsCredentials reports whether hc adds anything secret or custom to
// its requests.
func sendsCredentials(hc *config.HTTPClientConfig) bool {
	return hc.Authorization != nil || hc.BasicAuth != nil || hc.OAuth2 != nil ||
		hc.BearerToken != "" || hc.BearerTokenFile != "" || hc.HTTPHeaders != nil && len(hc.HTTPHeaders.Headers) > 0
}
