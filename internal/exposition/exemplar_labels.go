package exposition

import "strings"

// An exemplar may carry several labels: the spec's exemplar label is then
// a comma-separated list of names, and an Observe's exemplar value their
// values separated by NUL (never valid in a label value we accept). One
// string per exemplar keeps a histogram's exemplar slots as small as with
// one label; values may be fewer than names (a missing one is left out).
const exemplarValueSep = "\x00"

// eachExemplarLabel calls fn for every (name, value) pair of an exemplar.
func eachExemplarLabel(names, values string, fn func(name, value string)) {
	for names != "" {
		var name, value string
		name, names, _ = strings.Cut(names, ",")
		if values == "" {
			return
		}
		value, values, _ = strings.Cut(values, exemplarValueSep)
		if value != "" {
			fn(name, value)
		}
	}
}
