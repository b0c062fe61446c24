package config

import (
	"errors"
	"os"
	"runtime"
	"testing"
	"time"
)

// hostileConfigs maps each testdata/hostile/NAME.yml to its exact error
// after "testdata/hostile/NAME.yml:", or "" if it loads.
var hostileConfigs = map[string]string{
	"alias_bomb":          `20: targets[0].http_client_config.http_headers.X.values[5]: more than 1000000 YAML nodes once aliases and merge keys are expanded`,
	"merge_chain":         `12: targets[5].<<[8]: aliases add more than 4 MiB of text (each alias counts the text of the node it refers to)`,
	"deep_nesting":        "",
	"too_deep":            `6: exceeded max depth of 10000`,
	"deep_aliases":        `18: modules.m.extra_body.d11[0][0][0][0][0][0][0][0]…: alias *d10 nests this more than 10000 levels deep`,
	"long_anchor":         "",
	"long_string_aliases": `8: modules.c.extra_body.stop[64]: aliases add more than 4 MiB of text (each alias counts the text of the node it refers to)`,
	"alias_scalar_1000":   `8: modules.c.extra_body.stop[73]: aliases add more than 4 MiB of text (each alias counts the text of the node it refers to)`,
	"alias_cycle":         `13: targets[0].http_client_config.tls_config: alias *hc is inside the node it refers to (a cycle)`,
	"merge_cycle":         `7: targets[0].<<: alias *t is inside the node it refers to (a cycle)`,
	"wide_mappings":       `8: modules.m.extra_body.x: more than 50000000 pairs of mapping keys once aliases and merge keys are expanded (yaml.v3 compares each pair for duplicates)`,
}

// Whatever the file, Load answers quickly and in bounded memory. The bounds
// are far above what these take (milliseconds, a few MiB) so that a loaded
// machine or the race detector cannot trip them; before the budget, the
// alias bomb ran out of memory and the merge chain took 20 s.
const (
	hostileTimeBound  = 10 * time.Second
	hostileAllocBound = 64 << 20
)

func TestHostileConfigs(t *testing.T) {
	forEachTestdata(t, "testdata/hostile", hostileConfigs, func(t *testing.T, f, want string) {
		data, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		alloc, err := loadBounded(t, data, f)
		if alloc > hostileAllocBound {
			t.Errorf("Load allocated %d MiB", alloc>>20)
		}
		switch {
		case want == "" && err != nil:
			t.Errorf("want it to load, got %v", err)
		case want == "":
		case err == nil:
			t.Errorf("got no error, want %q", want)
		case err.Error() != f+":"+want:
			t.Errorf("wrong error\n got: %s\nwant: %s", err, f+":"+want)
		}
		var ce *Error
		if err != nil && !errors.As(err, &ce) {
			t.Errorf("error %T is not an *Error", err)
		}
	})
}

// loadBounded runs Load and returns its error and the bytes it allocated;
// it fails the test if Load does not return within hostileTimeBound.
func loadBounded(t *testing.T, data []byte, file string) (uint64, error) {
	t.Helper()
	type result struct {
		err   error
		alloc uint64
	}
	done := make(chan result, 1)
	go func() {
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		_, err := Load(data, file)
		runtime.ReadMemStats(&after)
		done <- result{err, after.TotalAlloc - before.TotalAlloc}
	}()
	select {
	case r := <-done:
		return r.alloc, r.err
	case <-time.After(hostileTimeBound):
		t.Fatalf("Load did not return within %s", hostileTimeBound)
		return 0, nil
	}
}
