package cfgsweep

import (
	"fmt"
	"regexp"
	"strings"
	"unicode/utf8"
)

// Bounds of a configuration list: a grid of a few flags multiplies fast,
// and every configuration starts a server.
const (
	MaxConfigurations = 1000
	maxParams         = 32
	maxValueBytes     = 256
	maxNameBytes      = 64
)

// Param is one server setting of a configuration.
type Param struct {
	Name  string `json:"name"`
	Value string `json:"value"`
}

// Configuration is one set of server settings, run to its knee.
type Configuration struct {
	Name   string  `json:"name,omitempty"` // from the file, else empty
	Params []Param `json:"params"`
}

// Key identifies a configuration in a result file (--resume): its name
// and parameters in order.
func (c Configuration) Key() string {
	var b strings.Builder
	if c.Name != "" {
		b.WriteString(c.Name + ":")
	}
	for i, p := range c.Params {
		if i > 0 || c.Name != "" {
			b.WriteByte(' ')
		}
		b.WriteString(p.Name + "=" + p.Value)
	}
	return b.String()
}

// Label is how a configuration is shown: its name, else its parameters.
func (c Configuration) Label() string {
	if c.Name != "" {
		return c.Name
	}
	if len(c.Params) == 0 {
		return "(no parameters)"
	}
	return c.Key()
}

// Value is parameter name's value, if the configuration sets it.
func (c Configuration) Value(name string) (string, bool) {
	for _, p := range c.Params {
		if p.Name == name {
			return p.Value, true
		}
	}
	return "", false
}

var paramName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_-]*$`)

// checkName refuses a parameter name a template could not name; port is
// the server's, never a parameter.
func checkName(n string) error {
	switch {
	case len(n) > maxNameBytes:
		return fmt.Errorf("parameter name of %d bytes (at most %d)", len(n), maxNameBytes)
	case !paramName.MatchString(n):
		return fmt.Errorf("parameter name %q: letters, digits, _ and - only, not starting with a digit or -", n)
	case n == "port":
		return fmt.Errorf("parameter name %q is reserved for the server's port", n)
	}
	return nil
}

// checkValue refuses values no server flag takes: empty, over the cap,
// invalid UTF-8 or with control characters (they would reach argv and the
// terminal).
func checkValue(name, v string) error {
	switch {
	case v == "":
		return fmt.Errorf("%s: empty value", name)
	case len(v) > maxValueBytes:
		return fmt.Errorf("%s: value of %d bytes (at most %d)", name, len(v), maxValueBytes)
	case !utf8.ValidString(v):
		return fmt.Errorf("%s: value is not UTF-8", name)
	}
	for _, r := range v {
		if r < 0x20 || r == 0x7f || (r >= 0x80 && r <= 0x9f) {
			return fmt.Errorf("%s: value has a control character (%U)", name, r)
		}
	}
	return nil
}

// ParseGrid reads --server-param flags, each NAME=V1,V2,…, into their
// grid: every combination, the first flag varying slowest.
func ParseGrid(flags []string) ([]Configuration, error) {
	grid := []Configuration{{}}
	seen := map[string]bool{}
	for _, f := range flags {
		name, vals, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("--server-param %q: want NAME=V1,V2,…", f)
		}
		if err := checkName(name); err != nil {
			return nil, fmt.Errorf("--server-param %q: %w", f, err)
		}
		if seen[name] {
			return nil, fmt.Errorf("--server-param %s given twice: list its values in one flag", name)
		}
		seen[name] = true
		values := strings.Split(vals, ",")
		for _, v := range values {
			if err := checkValue(name, v); err != nil {
				return nil, fmt.Errorf("--server-param: %w", err)
			}
		}
		if len(grid)*len(values) > MaxConfigurations {
			return nil, fmt.Errorf("--server-param: the grid has more than %d configurations", MaxConfigurations)
		}
		next := make([]Configuration, 0, len(grid)*len(values))
		for _, c := range grid {
			for _, v := range values {
				ps := append(append([]Param(nil), c.Params...), Param{name, v})
				next = append(next, Configuration{Params: ps})
			}
		}
		grid = next
	}
	if len(seen) > maxParams {
		return nil, fmt.Errorf("--server-param: %d parameters (at most %d)", len(seen), maxParams)
	}
	return grid, nil
}

// Cross combines every configuration of a file (or one empty one) with
// every grid point; a name set twice is an error.
func Cross(list, grid []Configuration) ([]Configuration, error) {
	if len(list) == 0 {
		list = []Configuration{{}}
	}
	if len(grid) == 0 {
		grid = []Configuration{{}}
	}
	if len(list)*len(grid) > MaxConfigurations {
		return nil, fmt.Errorf("%d configurations (at most %d)", len(list)*len(grid), MaxConfigurations)
	}
	var out []Configuration
	keys := map[string]bool{}
	for _, l := range list {
		for _, g := range grid {
			c := Configuration{Name: l.Name, Params: append(append([]Param(nil), l.Params...), g.Params...)}
			names := map[string]bool{}
			for _, p := range c.Params {
				if names[p.Name] {
					return nil, fmt.Errorf("configuration %s sets %s twice (in --server-config and --server-param)", c.Label(), p.Name)
				}
				names[p.Name] = true
			}
			if keys[c.Key()] {
				return nil, fmt.Errorf("configuration %s is listed twice", c.Label())
			}
			keys[c.Key()] = true
			out = append(out, c)
		}
	}
	return out, nil
}
