// Package e2ekit is the kit of end-to-end runs, the part of the test
// scaffolding that programs share with tests: processes started and
// stopped by their PID, free loopback addresses, waiting for an HTTP
// endpoint, streamed chat load, the probe and scrape configuration the
// end-to-end runs have in common, and a rule-file reader. It returns
// errors and does not import package testing, so the alert drill
// (e2e/drill) and the performance harnesses under perf/cmd use it as they
// are; package testutil wraps it for tests (testutil.Start,
// testutil.WaitHTTP).
package e2ekit

// ChatModule is the probe module "chat" of the end-to-end runs' prober
// configurations (under modules:, without its slo:).
const ChatModule = `  chat:
    api: chat
    messages:
      - role: user
        content: "Count from one to twenty, in words."
    max_tokens: 16
    ignore_eos: true
`

// ProberScrapeJob is the Prometheus scrape job of llm-prober at
// {{PROBER}}, ingesting its native histograms and keeping the classic
// _bucket series the rules and dashboards use (under scrape_configs:).
const ProberScrapeJob = `  - job_name: llm-prober
    scrape_native_histograms: true
    always_scrape_classic_histograms: true
    static_configs:
      - targets: ["{{PROBER}}"]
`
