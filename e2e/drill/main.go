// Command drill runs the alert drill: five mock vLLM personalities
// (healthy, slow, saturated, killed, all-timeout), llm-prober probing them, and a real
// Prometheus 3 with the shipped rules, unchanged, scraping and evaluating
// every 5s. At the end the prober itself is killed. It prints a table of
// alert x personality and exits non-zero when the healthy target alerts,
// an expected alert does not fire, an alert outlives the dead prober, or
// nothing fires at some poll after the prober's kill.
//
// Run it with scripts/alert-drill.sh (it builds the binaries).
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/llm-prober/llm-prober/internal/promapi"
	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
)

// mode is the drill's timeline.
type mode struct {
	name          string
	killTargetAt  time.Duration // the "dead" mock is killed
	killProberAt  time.Duration // llm-prober is killed
	observeAfter  time.Duration // how long to watch after the prober died
	expect        map[string][]string
	expectPending map[string][]string // must at least be pending (the for: outlasts the drill)
}

var personalities = []string{"healthy", "slow", "saturated", "dead", "timeout", "prober"}

// mocks are the personalities that are mock servers (all but "prober").
var mocks = personalities[:len(personalities)-1]

// Alerts each personality must fire. Everything on "healthy" must stay
// silent, and mustNot alerts must stay silent where listed. The saturated
// server's probes time out while queued (timeout_first_token), so it pages
// on availability and goodput (and on latency when enough of them time out
// past the TTFT SLO). Every probe of "timeout" waits past its TTFT SLO and
// times out before its first token: it must page on latency too (issue 23:
// it read 0 % TTFT errors), and never as unreachable.
// Burn-rate alerts are one row per window ("<alert> 1h/5m"). The 1d/2h and
// 3d/6h tickets (for: 1h, 3h) outlast any drill: they must be pending.
var full = mode{
	name: "full", killTargetAt: 5 * time.Minute, killProberAt: 25 * time.Minute, observeAfter: 6 * time.Minute,
	expect: map[string][]string{
		"slow":      {page("LLMProberLatencyBudgetBurn"), page("LLMProberGoodputBudgetBurn"), "LLMProberLatencyBudgetBurn 6h/30m", "LLMProberGoodputBudgetBurn 6h/30m"},
		"saturated": {page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn"), "LLMProberAvailabilityBudgetBurn 6h/30m", "LLMProberGoodputBudgetBurn 6h/30m", "LLMProberKVCacheNearFull", "LLMProberHighPreemptionRate", "LLMProberRequestsQueueing"},
		"dead":      {page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn"), "LLMProberAvailabilityBudgetBurn 6h/30m", "LLMProberGoodputBudgetBurn 6h/30m", "LLMProberTargetUnreachable", "LLMProberProbesFailing", "LLMProberServerMetricsScrapeFailing"},
		"timeout":   {page("LLMProberLatencyBudgetBurn"), page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn"), "LLMProberLatencyBudgetBurn 6h/30m", "LLMProberProbesFailing"},
		"prober":    {"LLMProberDown"},
	},
	expectPending: map[string][]string{
		"slow":      {"LLMProberLatencyBudgetBurn 1d/2h", "LLMProberLatencyBudgetBurn 3d/6h"},
		"saturated": {"LLMProberAvailabilityBudgetBurn 1d/2h", "LLMProberAvailabilityBudgetBurn 3d/6h"},
		"dead":      {"LLMProberAvailabilityBudgetBurn 1d/2h", "LLMProberAvailabilityBudgetBurn 3d/6h"},
	},
}

// page names the 1h/5m window of a burn-rate alert.
func page(alert string) string { return alert + " 1h/5m" }

// quick covers the short windows in about 10 minutes: the 1h/5m burn
// pages (the all-timeout target's latency page among them), and the
// prober's death: LLMProberDown (for: 1m) fires before its target alerts
// resolve (3m after the last scrape), and nothing goes silent in between.
// The capacity alerts need a full 10m window: they cannot even be pending.
var quick = mode{
	name: "quick", killTargetAt: time.Minute, killProberAt: 6 * time.Minute, observeAfter: 4 * time.Minute,
	expect: map[string][]string{
		"slow":      {page("LLMProberLatencyBudgetBurn"), page("LLMProberGoodputBudgetBurn")},
		"saturated": {page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn")},
		"dead":      {page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn")},
		"timeout":   {page("LLMProberLatencyBudgetBurn"), page("LLMProberAvailabilityBudgetBurn"), page("LLMProberGoodputBudgetBurn")},
		"prober":    {"LLMProberDown"},
	},
	expectPending: map[string][]string{
		"dead": {"LLMProberTargetUnreachable", "LLMProberProbesFailing"},
	},
}

// mustNot: the saturated server is overloaded, not unreachable (its probes
// time out after the headers), and no forecast fires on a start-up ramp.
var mustNot = map[string][]string{
	"saturated": {"LLMProberTargetUnreachable"},
	"timeout":   {"LLMProberTargetUnreachable"},
	"*":         {"LLMProberKVCacheExhaustionForecast"},
}

// Mock settings per personality (llm-prober mock-vllm flags).
var mockArgs = map[string][]string{
	"healthy":   {"--ttft", "100ms", "--ttft-jitter", "20ms", "--itl", "10ms", "--itl-jitter", "2ms"},
	"slow":      {"--ttft", "900ms", "--ttft-jitter", "50ms", "--itl", "10ms", "--itl-jitter", "2ms"},
	"saturated": {"--max-running", "2", "--kv-blocks", "16", "--faults", "rate_limit=0.03,stream_error=0.03"},
	"dead":      {"--ttft", "100ms", "--itl", "10ms"},
	"timeout":   {"--ttft", "30s", "--itl", "10ms"}, // past the 5s probe timeout
}

// Steady load clients per personality (the probes come on top).
var loadClients = map[string]int{"healthy": 1, "saturated": 6}

const proberConfig = `global:
  interval: 5s
  timeout: 5s
  max_concurrent_probes: 16
modules:
` + e2ekit.ChatModule + `    slo:
      ttft: 500ms
      tpot: 50ms
      e2el: 2s
targets:
{{TARGETS}}`

const targetTmpl = `  - name: %s
    url: "http://%s"
    model: mock-model
    backend: vllm
    modules: [chat]
    server_metrics:
      enabled: true
      interval: 5s
`

const promConfig = `global:
  scrape_interval: 5s
  scrape_timeout: 5s
  evaluation_interval: 5s
rule_files:
  - {{RULES}}/llm-prober-rules.yml
  - {{RULES}}/llm-prober-alerts.yml
scrape_configs:
` + e2ekit.ProberScrapeJob

func main() {
	quickFlag := flag.Bool("quick", false, "run the ~10 minute drill of the short windows instead of the ~31 minute one")
	proberBin := flag.String("prober", ".cache/bin/llm-prober", "llm-prober binary")
	promBin := flag.String("prometheus", ".cache/bin/prometheus", "Prometheus binary (from tools/go.mod)")
	rulesDir := flag.String("rules", "alerts", "directory with llm-prober-rules.yml and llm-prober-alerts.yml")
	tableOut := flag.String("table", "", "also write the result table (markdown) to this file")
	record := flag.String("record", "", "write the raw series of the run, in promtool input_series notation, to this file")
	flag.Parse()
	m := full
	if *quickFlag {
		m = quick
	}
	ok, err := run(m, *proberBin, *promBin, *rulesDir, *tableOut, *record)
	if err != nil {
		fmt.Fprintln(os.Stderr, "drill:", err)
		os.Exit(2)
	}
	if !ok {
		os.Exit(1)
	}
}

func run(m mode, proberBin, promBin, rulesDir, tableOut, record string) (bool, error) {
	work, err := os.MkdirTemp("", "alert-drill-")
	if err != nil {
		return false, err
	}
	fmt.Printf("drill (%s): logs and TSDB in %s\n", m.name, work)
	rulesAbs, err := filepath.Abs(rulesDir)
	if err != nil {
		return false, err
	}
	alertNames, err := alertNamesIn(filepath.Join(rulesAbs, "llm-prober-alerts.yml"))
	if err != nil {
		return false, err
	}
	ctx, cancel := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer cancel()

	var procs []*e2ekit.Proc
	defer func() {
		for _, p := range procs {
			if err := p.Stop(10 * time.Second); err != nil {
				fmt.Fprintln(os.Stderr, "drill:", err)
			}
		}
	}()
	spawn := func(name, bin string, args ...string) (*e2ekit.Proc, error) {
		p, err := startProc(work, name, bin, args...)
		if err == nil {
			procs = append(procs, p)
		}
		return p, err
	}

	// 1. The four mock personalities and their steady load.
	mockProcs := map[string]*e2ekit.Proc{}
	var targets strings.Builder
	loadCtx, stopLoad := context.WithCancel(ctx)
	defer stopLoad()
	for _, name := range mocks {
		addr, err := e2ekit.FreeAddr()
		if err != nil {
			return false, err
		}
		p, err := spawn("mock-"+name, proberBin, append([]string{"mock-vllm", "--listen-address", addr}, mockArgs[name]...)...)
		if err != nil {
			return false, err
		}
		if err := waitHTTP(p, "http://"+addr+"/v1/models", 30*time.Second); err != nil {
			return false, err
		}
		mockProcs[name] = p
		fmt.Fprintf(&targets, targetTmpl, name, addr)
		if n := loadClients[name]; n > 0 {
			load(loadCtx, "http://"+addr, n)
		}
	}

	// 2. llm-prober.
	proberAddr, err := e2ekit.FreeAddr()
	if err != nil {
		return false, err
	}
	cfg := filepath.Join(work, "llm-prober.yml")
	if err := os.WriteFile(cfg, []byte(strings.Replace(proberConfig, "{{TARGETS}}", targets.String(), 1)), 0o644); err != nil {
		return false, err
	}
	prober, err := spawn("llm-prober", proberBin, "--config.file", cfg, "--web.listen-address", proberAddr)
	if err != nil {
		return false, err
	}
	if err := waitHTTP(prober, "http://"+proberAddr+"/-/ready", 30*time.Second); err != nil {
		return false, err
	}

	// 3. Prometheus with the shipped rules, unchanged.
	promAddr, err := e2ekit.FreeAddr()
	if err != nil {
		return false, err
	}
	promCfg := filepath.Join(work, "prometheus.yml")
	pc := strings.NewReplacer("{{RULES}}", rulesAbs, "{{PROBER}}", proberAddr).Replace(promConfig)
	if err := os.WriteFile(promCfg, []byte(pc), 0o644); err != nil {
		return false, err
	}
	prom, err := spawn("prometheus", promBin, "--config.file", promCfg, "--storage.tsdb.path", filepath.Join(work, "tsdb"),
		"--web.listen-address", promAddr)
	if err != nil {
		return false, err
	}
	if err := waitHTTP(prom, "http://"+promAddr+"/-/ready", 60*time.Second); err != nil {
		return false, err
	}
	start := time.Now()
	api := promAPI{promapi.Client{Base: "http://" + promAddr}}
	tr := &tracker{api: api, start: start, seen: map[alertKey]*outcome{}, targets: map[string]string{}}
	for _, n := range mocks {
		tr.targets[n] = n
	}
	fmt.Printf("prometheus at %s, prober at %s; killing the dead target at %s and the prober at %s\n",
		api.Base, proberAddr, since(start, start.Add(m.killTargetAt)), since(start, start.Add(m.killProberAt)))

	// 4. The timeline.
	var targetKilled, proberKilled time.Time
	end := start.Add(m.killProberAt + m.observeAfter)
	var activeAtKill map[alertKey]bool
	resolvedAt := map[alertKey]time.Time{}
	var silent []time.Time // polls after the prober's kill at which nothing fired
	afterKill := 0
	for time.Now().Before(end) {
		if ctx.Err() != nil {
			return false, ctx.Err()
		}
		if prom.Exited() {
			return false, fmt.Errorf("prometheus exited early (see %s)", work)
		}
		now := time.Now()
		if targetKilled.IsZero() && now.Sub(start) >= m.killTargetAt {
			mockProcs["dead"].Kill()
			targetKilled = time.Now()
			fmt.Printf("%8s  killed the dead target's mock\n", since(start, targetKilled))
		}
		if proberKilled.IsZero() && now.Sub(start) >= m.killProberAt {
			prober.Kill()
			stopLoad()
			proberKilled = time.Now()
			activeAtKill = map[alertKey]bool{}
			for k, o := range tr.seen {
				if o.active && k.who != "prober" {
					activeAtKill[k] = true
				}
			}
			fmt.Printf("%8s  killed llm-prober (%d target alerts active)\n", since(start, proberKilled), len(activeAtKill))
		}
		if err := tr.poll(ctx); err != nil {
			fmt.Println("poll:", err)
		}
		for k := range activeAtKill {
			if _, done := resolvedAt[k]; !done && !tr.seen[k].active {
				resolvedAt[k] = time.Now()
			}
		}
		if !proberKilled.IsZero() {
			afterKill++
			if tr.firing == 0 {
				silent = append(silent, time.Now())
			}
		}
		time.Sleep(5 * time.Second)
	}

	res := result{mode: m, alerts: alertNames, tr: tr, start: start, targetKilled: targetKilled,
		proberKilled: proberKilled, activeAtKill: activeAtKill, resolvedAt: resolvedAt, silent: silent, afterKill: afterKill}
	table, ok := res.render()
	fmt.Println()
	fmt.Print(table)
	if tableOut != "" {
		if err := os.WriteFile(tableOut, []byte(table), 0o644); err != nil {
			return false, err
		}
	}
	if record != "" {
		if err := recordSeries(ctx, api, start.Add(-30*time.Second), time.Now(), record, res); err != nil {
			return false, fmt.Errorf("record: %w", err)
		}
		fmt.Printf("recorded the raw series to %s\n", record)
	}
	return ok, nil
}

// alertNamesIn lists the alert names of a rule file, in file order.
func alertNamesIn(file string) ([]string, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	rules, err := e2ekit.ParseRules(raw)
	if err != nil {
		return nil, err
	}
	var out []string
	seen := map[string]bool{}
	for _, r := range rules {
		name := r.Alert
		if l := r.Labels["long"]; l != "" {
			name += " " + l + "/" + r.Labels["short"]
		}
		if name != "" && !seen[name] {
			seen[name] = true
			out = append(out, name)
		}
	}
	return out, nil
}
