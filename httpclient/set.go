package httpclient

import (
	"net/http"
	"reflect"
	"strconv"
	"time"

	commoncfg "github.com/prometheus/common/config"
	"gopkg.in/yaml.v3"

	"github.com/llm-prober/llm-prober/config"
)

// Set hands out one client per distinct client config and keep-alive
// during one reload. A fleet usually has one setting, and a transport per
// target would cost memory at thousands of targets.
//
// Clients of the running config are offered to the Set first, so that an
// unchanged setting keeps its client and its open connections; CloseUnused
// then closes the idle connections of those no target uses any more. A
// client that fails to build is remembered for the rest of the reload
// (one attempt, not one per target) but never offered to the next: a
// missing CA file may be there by the next reload.
type Set struct {
	dial    DialFunc
	entries map[string][]*entry // by clientKey; told apart by deep equality
}

type entry struct {
	cfg       commoncfg.HTTPClientConfig // config.ComparableHTTP form
	keepAlive time.Duration
	client    *http.Client
	err       error
	used      bool
}

// NewSet returns an empty Set whose new clients dial with dial.
func NewSet(dial DialFunc) *Set {
	return &Set{dial: dial, entries: map[string][]*entry{}}
}

// Offer makes c, built earlier for cfg and keepAlive with the Set's
// dialer, available to Get. An equal config offered twice keeps the first.
func (s *Set) Offer(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration, c *http.Client) {
	if c == nil {
		return
	}
	if k, e := s.find(cfg, keepAlive); e == nil {
		s.entries[k] = append(s.entries[k], &entry{cfg: config.ComparableHTTP(cfg), keepAlive: keepAlive, client: c})
	}
}

// Get returns the client for cfg and keepAlive: an offered one, one built
// earlier in this reload, or a new one.
func (s *Set) Get(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration) (*http.Client, error) {
	k, e := s.find(cfg, keepAlive)
	if e == nil {
		c, err := New(cfg, keepAlive, s.dial)
		e = &entry{cfg: config.ComparableHTTP(cfg), keepAlive: keepAlive, client: c, err: err}
		s.entries[k] = append(s.entries[k], e)
	}
	e.used = true
	return e.client, e.err
}

// CloseUnused closes the idle connections of offered clients that Get did
// not hand out: their targets are gone or have other settings now.
func (s *Set) CloseUnused() {
	for _, es := range s.entries {
		for _, e := range es {
			if !e.used && e.client != nil {
				e.client.CloseIdleConnections()
			}
		}
	}
}

func (s *Set) find(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration) (string, *entry) {
	k, c := clientKey(cfg, keepAlive), config.ComparableHTTP(cfg)
	for _, e := range s.entries[k] {
		if e.keepAlive == keepAlive && reflect.DeepEqual(e.cfg, c) {
			return k, e
		}
	}
	return k, nil
}

// clientKey buckets configs by their YAML, where secrets are redacted;
// deep equality, which sees the secrets, tells a bucket's configs apart.
func clientKey(cfg commoncfg.HTTPClientConfig, keepAlive time.Duration) string {
	b, err := yaml.Marshal(cfg)
	if err != nil {
		return strconv.FormatInt(int64(keepAlive), 10)
	}
	return strconv.FormatInt(int64(keepAlive), 10) + "\n" + string(b)
}
