package collector

import (
	"bufio"
	"bytes"
	"io"
	"regexp"
	"strconv"
	"strings"
)

// MaxParsedSeries caps the samples (each bucket, _sum and _count line is
// one) of mapped or passthrough families that one scrape may parse. The
// parser's objects cost a few hundred bytes a sample, so the whole
// exposition is never handed to it: an exposition of a million series
// would grow the prober by hundreds of MiB. A real server's mapped
// families are a few thousand samples.
const MaxParsedSeries = 50_000

// familyFilter keeps the lines of an exposition that belong to a family
// some mapping reads or a passthrough regex selects; everything else is
// skipped before parsing. Unknown syntax is kept, so that a page that is
// not the text format still fails as parse.
type familyFilter struct {
	names map[string]struct{} // source names, with _total and alias spellings
	res   []*regexp.Regexp
}

// newFamilyFilter wants the sources of every mapping in ms (all of them
// for auto-detection) and the families res match.
func newFamilyFilter(ms []*Mapping, res []*regexp.Regexp) *familyFilter {
	f := &familyFilter{names: map[string]struct{}{}, res: res}
	for _, m := range ms {
		for _, r := range m.Rules {
			for _, s := range r.Sources {
				f.add(s.Name)
				for alias, canon := range m.Aliases {
					if rest, ok := strings.CutPrefix(s.Name, canon); ok {
						f.add(alias + rest)
					}
				}
			}
		}
	}
	return f
}

// specFilter wants what spec's backend maps (every backend's for
// auto-detection; none for openai) and what res select.
func specFilter(spec *targetSpec, res []*regexp.Regexp) *familyFilter {
	var ms []*Mapping
	switch {
	case detects(string(spec.backend)):
		for _, m := range registry {
			ms = append(ms, m)
		}
	case registry[spec.backend] != nil:
		ms = []*Mapping{registry[spec.backend]}
	}
	return newFamilyFilter(ms, res)
}

// add wants name with and without _total (lookup matches both).
func (f *familyFilter) add(name string) {
	f.names[name] = struct{}{}
	f.names[strings.TrimSuffix(name, "_total")] = struct{}{}
	f.names[name+"_total"] = struct{}{}
}

// wants reports whether samples named name belong to a wanted family:
// as named, or a histogram's or summary's family.
func (f *familyFilter) wants(name string) bool {
	if f.want(name) {
		return true
	}
	for _, suf := range [...]string{"_bucket", "_count", "_sum", "_created"} {
		if base, ok := strings.CutSuffix(name, suf); ok && f.want(base) {
			return true
		}
	}
	return false
}

func (f *familyFilter) want(name string) bool {
	if _, ok := f.names[name]; ok {
		return true
	}
	return matchAny(f.res, name)
}

// filter is filterReader of a body in memory.
func (f *familyFilter) filter(body []byte, limit int) (out []byte, over bool) {
	out, over, _ = f.filterReader(bytes.NewReader(body), limit)
	return out, over
}

// filterReader copies the wanted lines of r. over is true when they hold
// more than limit samples; it stops reading there.
func (f *familyFilter) filterReader(r io.Reader, limit int) (out []byte, over bool, err error) {
	br := bufio.NewReaderSize(r, 64<<10)
	var long []byte // a line longer than br's buffer
	samples := 0
	var c lastFamily
	for {
		line, rerr := br.ReadSlice('\n')
		if rerr == bufio.ErrBufferFull {
			long = append(long, line...)
			continue
		}
		if long != nil {
			line, long = append(long, line...), nil
		}
		if rerr != nil && rerr != io.EOF {
			return nil, false, rerr
		}
		if keep, sample := f.keep(line, &c); keep {
			if sample {
				if samples++; samples > limit {
					return nil, true, nil
				}
			}
			out = append(out, line...)
		}
		if rerr == io.EOF {
			return out, false, nil
		}
	}
}

// lastFamily remembers the last decision: consecutive lines are mostly
// of one family.
type lastFamily struct {
	name []byte
	keep bool
}

// keep decides on one line: wanted, and whether it is a sample. A line
// lineName cannot read is kept for the parser (and counts as no sample).
func (f *familyFilter) keep(line []byte, c *lastFamily) (keep, sample bool) {
	name, sample, known := lineName(line)
	switch {
	case !known:
		return true, false
	case len(name) == 0:
		return false, false
	case c.name == nil || !bytes.Equal(name, c.name):
		c.name, c.keep = append(c.name[:0], name...), f.wants(string(name))
	}
	return c.keep, sample
}

// lineName finds the metric name of a text-format line: of a sample, or
// of a HELP or TYPE comment. known is false for what it cannot read,
// which is then left to the parser; a blank line or another comment has
// an empty name and is dropped.
func lineName(line []byte) (name []byte, sample, known bool) {
	line = bytes.TrimRight(line, "\r\n")
	if len(bytes.TrimSpace(line)) == 0 {
		return nil, false, true
	}
	if line[0] == '#' {
		rest := bytes.TrimLeft(line[1:], " \t")
		kw, after, ok := bytes.Cut(rest, []byte(" "))
		if !ok || string(kw) != "HELP" && string(kw) != "TYPE" {
			return nil, false, true // a plain comment
		}
		name, ok = readName(bytes.TrimLeft(after, " \t"))
		return name, false, ok
	}
	if line[0] == '{' {
		name, ok := readQuoted(line[1:])
		return name, true, ok
	}
	name, ok := readName(line)
	return name, true, ok
}

// readName reads a legacy name up to '{', a blank or the end, or a quoted
// (UTF-8) name.
func readName(b []byte) ([]byte, bool) {
	if len(b) > 0 && b[0] == '"' {
		return readQuoted(b)
	}
	i := 0
	for i < len(b) && isNameByte(b[i], i) {
		i++
	}
	if i == 0 || i < len(b) && b[i] != '{' && b[i] != ' ' && b[i] != '\t' {
		return nil, false
	}
	return b[:i], true
}

func isNameByte(c byte, i int) bool {
	return c == '_' || c == ':' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' && i > 0
}

// readQuoted reads a "quoted" name at the start of b.
func readQuoted(b []byte) ([]byte, bool) {
	if len(b) == 0 || b[0] != '"' {
		return nil, false
	}
	for i := 1; i < len(b); i++ {
		switch b[i] {
		case '\\':
			i++
		case '"':
			s, err := strconv.Unquote(string(b[:i+1]))
			if err != nil {
				return nil, false
			}
			return []byte(s), true
		}
	}
	return nil, false
}
