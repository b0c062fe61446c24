package prober

import (
	"fmt"
	"net/http"
	"time"

	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/httpclient"
)

// NewClient builds the HTTP client that probes t: the target's TLS, auth
// and proxy settings, idle connections closed after keepAlive, redirects
// kept on the target's origin, and connections that carry kernel receive
// times where the OS has them.
func NewClient(t *config.Target, keepAlive time.Duration) (*http.Client, error) {
	return httpclient.New(t.HTTPClientConfig, keepAlive, dialRx)
}

// NewLoadClient is NewClient for a load generator holding thousands of
// connections (bench): the same config semantics, with
// httpclient.NewLean's smaller per-connection memory.
func NewLoadClient(t *config.Target, keepAlive time.Duration) (*http.Client, error) {
	return httpclient.NewLean(t.HTTPClientConfig, keepAlive, dialRx)
}

// buildClients reuses the HTTP client (and its connection pool) of every
// target whose config is unchanged, and gives targets with identical
// client settings one shared client. A client that cannot be built (a
// missing CA file, say) fails the probes of the targets that use it,
// visibly, instead of failing the whole reload: the file may appear
// later, and the next reload tries again.
func (s *Scheduler) buildClients(cfg *config.Config) map[string]*targetClient {
	keepAlive := time.Duration(cfg.Global.KeepAliveTimeout)
	if keepAlive <= 0 {
		keepAlive = config.DefaultKeepAliveTimeout
	}
	set := httpclient.NewSet(dialRx)
	for _, old := range s.clients {
		if old.err == nil {
			set.Offer(old.target.HTTPClientConfig, old.keepAlive, old.client)
		}
	}
	out := map[string]*targetClient{}
	for _, t := range cfg.Targets {
		c, err := set.Get(t.HTTPClientConfig, keepAlive)
		if old, ok := s.clients[t.Name]; ok && err == nil && old.client == c && old.target.Equal(t) && old.keepAlive == keepAlive {
			out[t.Name] = old
			continue
		}
		if err != nil {
			err = fmt.Errorf("building HTTP client for target %s: %w", t.Name, err)
			level.Error(s.logger).Log("msg", "target cannot be probed", "target", t.Name, "err", err)
		}
		out[t.Name] = &targetClient{target: t, keepAlive: keepAlive, client: c, err: err}
	}
	set.CloseUnused()
	return out
}

// closesConnection says whether the job's probes close their connection as
// they end: the target's probes (one per module per interval, at random
// phases) come on average further apart than the keep-alive timeout, so an
// idle connection would almost always be closed unused.
func (j *job) closesConnection() bool {
	gap := time.Duration(j.target.Interval) / time.Duration(max(1, len(j.target.Modules)))
	return gap >= j.client.keepAlive
}
