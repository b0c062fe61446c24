package main

import (
	"fmt"
	"strings"

	"github.com/prometheus/common/model"
)

// renderConfig renders n targets. Most probe the mock; a few per hundred hit
// transport failures the mock cannot produce: a closed port, an
// unresolvable name and TLS spoken to a plain-HTTP server. generation
// changes the timeout of every other target, so that a reload restarts
// half the jobs and keeps the rest.
func renderConfig(o options, mockURL, closed string, generation int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  interval: %s\n  timeout: %s\n  max_concurrent_probes: 256\n",
		model.Duration(o.interval), model.Duration(o.timeout))
	b.WriteString(`modules:
  chat:
    api: chat
    messages: [{role: user, content: "Count to ten."}]
    max_tokens: 16
    ignore_eos: true
    slo: {ttft: 200ms, e2el: 1s}
  completions:
    api: completions
    prompt: "Once upon a time"
    max_tokens: 8
    ignore_eos: true
targets:
`)
	for i := range o.targets {
		url := mockURL
		switch i % 100 {
		case 97:
			url = "http://" + closed
		case 98:
			url = fmt.Sprintf("http://t%d.soak.invalid:8000", i)
		case 99:
			url = strings.Replace(mockURL, "http://", "https://", 1)
		}
		timeout := o.timeout
		if generation > 0 && i%2 == 0 {
			timeout -= o.timeout / 10
		}
		module := "chat"
		if i%5 == 0 {
			module = "completions"
		}
		fmt.Fprintf(&b, "  - {name: t%04d, url: %q, model: mock-model, modules: [%s], timeout: %s}\n",
			i, url, module, model.Duration(timeout))
	}
	return b.String()
}
