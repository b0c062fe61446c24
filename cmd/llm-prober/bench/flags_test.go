package bench

import (
	"reflect"
	"testing"

	"github.com/alecthomas/kingpin/v2"
)

func parseBench(t *testing.T, args ...string) (*Command, string, error) {
	t.Helper()
	app := kingpin.New("llm-prober", "")
	b := NewCommand(app)
	cmd, err := app.Parse(args)
	return b, cmd, err
}

func runConfig(b *Command) Command {
	c := *b
	c.cmd, c.runCmd, c.compare, c.merge = nil, nil, nil, nil
	return c
}

func TestBenchFlagsParse(t *testing.T) {
	for _, args := range [][]string{
		{},
		{"--url", "http://h:8000", "--request-rate", "8", "--num-prompts", "100"},
		{"--url=http://h:8000", "--model=m", "--api=completions", "--no-ignore-eos", "--no-fresh-prompts", "--no-server-metrics"},
		{"--label", "compare", "--fail-on", "failed>0", "--fail-on", "any-failure", "--extra-metrics-url", "http://a/metrics", "--output-json", "r.json"},
		{"--sweep", "--rates", "1,2", "--knee-rate", "4", "--daily-requests", "1e6", "--dataset-name", "trace", "--trace-time-scale", "0.5", "--turns", "3"},
		{"--workload-from-prometheus", "--prometheus.url", "http://p:9090", "--window", "1d", "--web.listen-address", ":9999", "--web.config.file", "w.yml"},
	} {
		b, cmd, err := parseBench(t, append([]string{"bench"}, args...)...)
		if err != nil || cmd != "bench run" {
			t.Errorf("bench %q: %q, %v", args, cmd, err)
			continue
		}
		r, _, err := parseBench(t, append([]string{"bench", "run"}, args...)...)
		if err != nil {
			t.Fatal(err)
		}
		if got, want := runConfig(b), runConfig(r); !reflect.DeepEqual(got, want) {
			t.Errorf("bench %q parses to\n%+v\nbench run to\n%+v", args, got, want)
		}
	}
	b, _, err := parseBench(t, "bench", "--url", "http://h:8000", "--request-rate", "8", "--num-prompts", "100", "--no-fresh-prompts", "--window", "1d")
	if err != nil || b.URL != "http://h:8000" || b.Rate != "8" || !b.Derive.RateSet || b.NumPrompts != 100 || !b.NumPromptsSet ||
		b.FreshPrompts || !b.IgnoreEOS || b.Timeout.String() != "10m0s" || b.Percentiles != "50,90,95,99,99.9" || b.Shape.Turns != 4 ||
		b.Derive.Prometheus.Selector != "{}" || b.Derive.Prometheus.Window.String() != "1d" || (*b.Web.WebListenAddresses)[0] != "" {
		t.Errorf("bench: %v\n%+v", err, b.Config)
	}

	for _, args := range [][]string{
		{"a.json", "b.json", "--max-regression", "p99_ttft_ms:10%", "--alpha", "0.01", "--force", "--output-json", "c.json"},
		{"--output-json=c.json", "--force", "--alpha=0.01", "--max-regression", "p99_ttft_ms:10%", "a.json", "b.json"},
	} {
		b, cmd, err := parseBench(t, append([]string{"bench", "compare"}, args...)...)
		if c := b.compare; err != nil || cmd != "bench compare" || c.Base != "a.json" || c.New != "b.json" ||
			c.MaxRegression != "p99_ttft_ms:10%" || c.Alpha != 0.01 || !c.Force || c.OutputJSON != "c.json" {
			t.Errorf("bench compare %q: %q, %v, %+v", args, cmd, err, c.CompareConfig)
		}
	}
	if b, _, err := parseBench(t, "bench", "compare", "a.json", "b.json"); err != nil || b.compare.Alpha != 0.05 || b.compare.OutputJSON != "" {
		t.Errorf("bench compare defaults: %v, %+v", err, b.compare.CompareConfig)
	}

	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"bench", "compare", "a.json", "b.json", "--request-rate", "8"}, "unknown long flag '--request-rate'"},
		{[]string{"bench", "--bogus"}, "unknown long flag '--bogus'"},
		{[]string{"bench", "--url"}, "expected argument for flag '--url'"}, // was left empty
		{[]string{"bench", "--api", "nope"}, "enum value must be one of chat,completions, got 'nope'"},
		{[]string{"bench", "extra"}, "unexpected extra"},
		{[]string{"bench", "compare", "a.json"}, "required argument 'new' not provided"},
	} {
		if _, _, err := parseBench(t, c.args...); err == nil || err.Error() != c.want {
			t.Errorf("%q: %v, want %q", c.args, err, c.want)
		}
	}
}
