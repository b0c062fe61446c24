package collector

import (
	"hash/maphash"
	"sort"
	"strings"
	"unicode/utf8"

	dto "github.com/prometheus/client_model/go"
)

// Why a target's series was left out of our exposition, for
// llm_prober_server_metrics_dropped_series_total: a fixed set, so the
// counter's cardinality stays bounded.
const (
	dropInvalid      = iota // a name, label name or label value the exposition cannot carry
	dropTypeConflict        // the name, or one it writes, belongs to a family of another type
	dropDuplicate           // the same name and labels as a series already exported
	dropBadHistogram        // NaN or infinite values, or counts that fall (validHistogram)
	dropNonFinite           // a gauge, counter or untyped value of NaN or ±Inf
	numDropReasons
)

var dropReasons = [numDropReasons]string{"invalid", "type_conflict", "duplicate", "invalid_histogram", "non_finite"}

// drops tallies one target's dropped series by reason.
type drops [numDropReasons]int

// ptGuard admits passthrough series into one Collect only if the registry
// and both exposition formats will take them. A target controls the names,
// labels and types of these series, and a single series that the registry
// rejects (a duplicate, a name of two types, a histogram's _count taken by
// a gauge) turns the whole of /metrics into an error. Every passthrough
// series goes through admit, so each of those cases is caught here, once,
// whichever target or combination of targets causes it.
type ptGuard struct {
	fams   map[string]ptKind // admitted families by name
	owners map[string]string // every name a family writes, to that family
	seen   map[uint64]struct{}
	seed   maphash.Seed
	h      maphash.Hash
}

type ptKind struct {
	typ  dto.MetricType
	help string
}

func newPTGuard() *ptGuard {
	g := &ptGuard{fams: map[string]ptKind{}, owners: map[string]string{}, seen: map[uint64]struct{}{}, seed: maphash.MakeSeed()}
	g.h.SetSeed(g.seed)
	return g
}

// family admits pf's name and type. It returns the help to use (the first
// family of a name sets it, as the registry wants one help per name), or
// the reason why none of pf's series can be exported.
func (g *ptGuard) family(pf *ptFamily) (string, int, bool) {
	if !strings.HasPrefix(pf.name, passthroughPrefix) || !validName(pf.name) {
		return "", dropInvalid, false // our own families live outside the prefix
	}
	if k, ok := g.fams[pf.name]; ok {
		if k.typ != pf.typ {
			return "", dropTypeConflict, false
		}
		return k.help, 0, true
	}
	names := writtenNames(pf.name, pf.typ)
	for _, n := range names {
		if owner, ok := g.owners[n]; ok && owner != pf.name {
			return "", dropTypeConflict, false
		}
	}
	for _, n := range names {
		g.owners[n] = pf.name
	}
	help := pf.help
	if help == "" || !utf8.ValidString(help) {
		help = "Passed through from the target's own /metrics."
	}
	g.fams[pf.name] = ptKind{typ: pf.typ, help: help}
	return help, 0, true
}

// writtenNames lists the names a family occupies in the text format and
// in OpenMetrics, where counter x_total is family x: two families must
// never share one, or Prometheus rejects the scrape (the registry already
// fails the gather on the histogram and summary suffixes).
func writtenNames(name string, t dto.MetricType) []string {
	switch t {
	case dto.MetricType_COUNTER:
		if base, ok := strings.CutSuffix(name, "_total"); ok {
			return []string{name, base}
		}
	case dto.MetricType_HISTOGRAM:
		return []string{name, name + "_bucket", name + "_sum", name + "_count"}
	case dto.MetricType_SUMMARY:
		return []string{name, name + "_sum", name + "_count"}
	}
	return []string{name}
}

// series admits one series of an admitted family, labels included.
func (g *ptGuard) series(pf *ptFamily, ps *ptSeries, target string) (int, bool) {
	if reason, ok := validLabels(pf.typ, ps.names, ps.values); !ok {
		return reason, false
	}
	// Identity: family and sorted label pairs, target's value included.
	idx := make([]int, len(ps.names))
	for i := range idx {
		idx[i] = i
	}
	sort.Slice(idx, func(a, b int) bool { return ps.names[idx[a]] < ps.names[idx[b]] })
	g.h.Reset()
	g.h.WriteString(pf.name)
	for _, i := range idx {
		v := ps.values[i]
		if i == 0 {
			v = target // names[0] is our target label
		}
		g.h.WriteByte(0xff)
		g.h.WriteString(ps.names[i])
		g.h.WriteByte(0xfe)
		g.h.WriteString(v)
	}
	k := g.h.Sum64()
	if _, dup := g.seen[k]; dup {
		return dropDuplicate, false
	}
	g.seen[k] = struct{}{}
	return 0, true
}

// validLabels checks what the registry checks of a series' labels, and
// what the formats reserve: legacy-valid, unique names (sanitising can
// collapse two source names into one), UTF-8 values, and no le or quantile
// of our own on the types whose buckets or quantiles use them.
func validLabels(t dto.MetricType, names, values []string) (int, bool) {
	for i, n := range names {
		if !validLabelName(n) || strings.HasPrefix(n, "__") ||
			t == dto.MetricType_HISTOGRAM && n == "le" || t == dto.MetricType_SUMMARY && n == "quantile" {
			return dropInvalid, false
		}
		for _, m := range names[:i] {
			if m == n {
				return dropInvalid, false
			}
		}
		if !utf8.ValidString(values[i]) {
			return dropInvalid, false
		}
	}
	return 0, true
}

func validName(n string) bool {
	for i, c := range n {
		if !(c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0) {
			return false
		}
	}
	return n != ""
}

func validLabelName(n string) bool {
	return validName(n) && !strings.Contains(n, ":")
}
