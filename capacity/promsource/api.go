package promsource

import v1 "github.com/prometheus/client_golang/api/prometheus/v1"

// API is the source's client, with its auth, TLS and no redirects, for
// callers with queries of their own (bench --workload-from-prometheus).
func (s *Source) API() v1.API { return s.api }
