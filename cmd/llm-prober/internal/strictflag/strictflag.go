// Package strictflag holds kingpin flag values stricter than kingpin's
// own: kingpin's IntVar parses a float and truncates it, so
// --gpus-per-replica 2.5 silently became 2.
package strictflag

import (
	"fmt"
	"strconv"

	"github.com/alecthomas/kingpin/v2"
)

type intValue struct {
	name string
	p    *int
}

func (v intValue) Set(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		return fmt.Errorf("--%s: %q is not a whole number", v.name, s)
	}
	*v.p = n
	return nil
}

func (v intValue) String() string { return strconv.Itoa(*v.p) }

// Int makes the flag an integer that refuses fractions ("2.5") and
// exponents ("1e3") instead of truncating them.
func Int(f *kingpin.FlagClause, p *int) { f.SetValue(intValue{f.Model().Name, p}) }
