package prober

import (
	"fmt"
	"net/http"
	"reflect"
	"time"

	"github.com/go-kit/log/level"
	commoncfg "github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/config"
)

// NewClient builds the HTTP client that probes t: the target's TLS, auth
// and proxy settings, idle connections closed after keepAlive, and
// connections that carry kernel receive times where the OS has them.
func NewClient(t *config.Target, keepAlive time.Duration) (*http.Client, error) {
	opts := []commoncfg.HTTPClientOption{commoncfg.WithIdleConnTimeout(keepAlive)}
	if dialRx != nil {
		opts = append(opts, commoncfg.WithDialContextFunc(dialRx))
	}
	return commoncfg.NewClientFromConfig(t.HTTPClientConfig, "llm_prober", opts...)
}

// buildClients reuses the HTTP client (and its connection pool) of every
// target whose config is unchanged, and gives targets with identical
// client settings one shared client: a fleet usually has one setting, and
// a transport per target would cost memory at thousands of targets. A
// client that cannot be built (a missing CA file, say) fails the probes
// of the targets that use it, visibly, instead of failing the whole
// reload: the file may appear later, and other targets must keep working.
func (s *Scheduler) buildClients(cfg *config.Config) map[string]*targetClient {
	keepAlive := time.Duration(cfg.Global.KeepAliveTimeout)
	if keepAlive <= 0 {
		keepAlive = config.DefaultKeepAliveTimeout
	}
	shared := clientSet{}
	for _, old := range s.clients {
		if old.err == nil && old.keepAlive == keepAlive {
			shared.add(old.target.HTTPClientConfig, old.client, nil)
		}
	}
	out := map[string]*targetClient{}
	for _, t := range cfg.Targets {
		if old, ok := s.clients[t.Name]; ok && old.target.Equal(t) && old.keepAlive == keepAlive && old.err == nil {
			out[t.Name] = old
			continue
		}
		c, err := shared.get(t, keepAlive)
		if err != nil {
			err = fmt.Errorf("building HTTP client for target %s: %w", t.Name, err)
			level.Error(s.logger).Log("msg", "target cannot be probed", "target", t.Name, "err", err)
		}
		out[t.Name] = &targetClient{target: t, keepAlive: keepAlive, client: c, err: err}
	}
	used := map[*http.Client]bool{}
	for _, tc := range out {
		used[tc.client] = true
	}
	for _, old := range s.clients {
		if old.client != nil && !used[old.client] {
			old.client.CloseIdleConnections()
			used[old.client] = true // close once
		}
	}
	return out
}

// clientSet finds the client of an identical HTTP client config. Configs
// are bucketed by their redacted YAML and told apart by deep equality,
// which sees secrets the YAML hides.
type clientSet map[string][]sharedClient

type sharedClient struct {
	cfg    commoncfg.HTTPClientConfig // config.ComparableHTTP form
	client *http.Client
	err    error
}

func clientKey(h commoncfg.HTTPClientConfig) string {
	b, err := yaml.Marshal(h)
	if err != nil {
		return ""
	}
	return string(b)
}

func (cs clientSet) find(h commoncfg.HTTPClientConfig) (sharedClient, string, bool) {
	k, c := clientKey(h), config.ComparableHTTP(h)
	for _, e := range cs[k] {
		if reflect.DeepEqual(e.cfg, c) {
			return e, k, true
		}
	}
	return sharedClient{}, k, false
}

func (cs clientSet) add(h commoncfg.HTTPClientConfig, c *http.Client, err error) {
	if _, k, ok := cs.find(h); !ok {
		cs[k] = append(cs[k], sharedClient{config.ComparableHTTP(h), c, err})
	}
}

func (cs clientSet) get(t *config.Target, keepAlive time.Duration) (*http.Client, error) {
	if e, _, ok := cs.find(t.HTTPClientConfig); ok {
		return e.client, e.err
	}
	c, err := NewClient(t, keepAlive)
	cs.add(t.HTTPClientConfig, c, err)
	return c, err
}
