package merge

import (
	"bytes"
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// rewrite copies path to a new file with from replaced by to once.
func rewrite(t *testing.T, path, from, to string) string {
	t.Helper()
	raw, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Contains(raw, []byte(from)) {
		t.Fatalf("%s lacks %s", path, from)
	}
	out := filepath.Join(t.TempDir(), filepath.Base(path))
	if err := os.WriteFile(out, bytes.Replace(raw, []byte(from), []byte(to), 1), 0o600); err != nil {
		t.Fatal(err)
	}
	return out
}

// GroupByRate sorts a sweep's shard files by rate from their manifests
// alone; CheckSweep lets the points differ in rate, seed (with the
// workload's seed) and start only, and refuses what is no sweep's point.
func TestGroupByRate(t *testing.T) {
	at1000 := writeShards(t, t.TempDir(), 2, 10, 1)
	at500 := []string{
		rewrite(t, at1000[0], `"rate":"1000"`, `"rate":"500"`),
		rewrite(t, at1000[1], `"rate":"1000"`, `"rate":"500"`),
	}
	groups, err := GroupByRate(context.Background(), append(append([]string{}, at1000...), at500...))
	if err != nil || len(groups) != 2 || groups[0].Rate != 500 || groups[1].Rate != 1000 || len(groups[0].Paths) != 2 || groups[0].First == nil {
		t.Fatalf("groups %+v, %v", groups, err)
	}
	if err := CheckSweep(groups); err != nil {
		t.Errorf("CheckSweep: %v", err)
	}
	reseeded := rewrite(t, at500[0], `"seed":1,`, `"seed":2,`)
	if g, err := GroupByRate(context.Background(), []string{at1000[0], reseeded}); err != nil || CheckSweep(g) != nil {
		t.Errorf("a point with the next seed (fresh prompts): %v, %v", err, CheckSweep(g))
	}
	for name, c := range map[string]struct{ old, new, want string }{
		"other workload": {`"workload":"random 1024→128"`, `"workload":"random 512→128"`, "is not a point of"},
		"closed loop":    {`"concurrency":0`, `"concurrency":4`, "not a sweep's point"},
		"infinite rate":  {`"rate":"500"`, `"rate":"inf"`, "finite --request-rate"},
	} {
		bad := rewrite(t, at500[0], c.old, c.new)
		g, err := GroupByRate(context.Background(), []string{at1000[0], bad})
		if err == nil {
			err = CheckSweep(g)
		}
		if !errors.As(err, new(BadInputError)) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a BadInputError with %q", name, err, c.want)
		}
	}
	if _, err := GroupByRate(context.Background(), []string{filepath.Join(t.TempDir(), "none.json")}); !errors.As(err, new(BadInputError)) {
		t.Errorf("a missing file: %v", err)
	}
}
