package strictflag

import (
	"strings"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

// A fraction is refused, naming the flag; a whole number and the default
// are read.
func TestIntRefusesFractions(t *testing.T) {
	for _, c := range []struct {
		args []string
		want int
		err  string
	}{
		{nil, 1, ""},
		{[]string{"--n", "8"}, 8, ""},
		{[]string{"--n", "2.5"}, 0, `--n: "2.5" is not a whole number`},
		{[]string{"--n", "1e3"}, 0, "not a whole number"},
		{[]string{"--n", "NaN"}, 0, "not a whole number"},
	} {
		app := kingpin.New("t", "")
		var n int
		Int(app.Flag("n", "").Default("1"), &n)
		_, err := app.Parse(c.args)
		if c.err == "" && (err != nil || n != c.want) {
			t.Errorf("%v: %d, %v; want %d", c.args, n, err, c.want)
		}
		if c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)) {
			t.Errorf("%v: %v, want an error with %q", c.args, err, c.err)
		}
	}
}
