package main

import (
	"fmt"
	"sort"
	"strings"

	"github.com/prometheus/common/model"
)

// hostileConfig renders one target per hostile kind. generation is shown
// by /config (a label) and changes max_tokens, so that a reload to the
// next generation restarts every job while the targets are hostile.
func hostileConfig(o options, targets map[string]string, secretFile string, generation int) string {
	var b strings.Builder
	fmt.Fprintf(&b, "global:\n  interval: %s\n  timeout: %s\n", model.Duration(o.interval), model.Duration(o.timeout))
	fmt.Fprintf(&b, `modules:
  chat:
    api: chat
    messages: [{role: user, content: "Count to ten."}]
    max_tokens: %d
targets:
`, 15+generation)
	for _, k := range hostileKinds {
		fmt.Fprintf(&b, "  - name: %s\n    url: %s\n    model: hostile\n    modules: [chat]\n    labels: {generation: %q}\n",
			k.name, targets[k.name], generationLabel(generation))
		if k.name == "redirect" {
			// Inline secrets are refused by the loader: from a file.
			fmt.Fprintf(&b, "    http_client_config:\n      http_headers:\n        %s: {files: [%q]}\n", redirectHeader, secretFile)
		}
	}
	return b.String()
}

// generationLabel is how /config shows a generation.
func generationLabel(g int) string { return fmt.Sprintf("gen%d", g) }

// aliasBomb is a "billion laughs": ten anchors, each listing the previous
// one ten times, 10^10 strings once expanded, in about 1 KB.
func aliasBomb() string {
	var b strings.Builder
	b.WriteString("modules:\n  m:\n    messages: [{role: user, content: hi}]\ntargets:\n")
	b.WriteString("  - name: bomb\n    url: http://127.0.0.1:9\n    model: x\n    modules: [m]\n")
	b.WriteString("    http_client_config:\n      http_headers:\n        X:\n          values:\n")
	b.WriteString("            - &a0 [lol, lol, lol, lol, lol, lol, lol, lol, lol, lol]\n")
	for i := 1; i < 10; i++ {
		fmt.Fprintf(&b, "            - &a%d [%s]\n", i, tenTimes(fmt.Sprintf("*a%d", i-1)))
	}
	return b.String()
}

// mergeChain is a chain of targets each merging the previous one ten
// times with <<: 10^8 merges if they are expanded naively.
func mergeChain() string {
	var b strings.Builder
	b.WriteString("modules:\n  m:\n    messages: [{role: user, content: hi}]\ntargets:\n")
	b.WriteString("  - &t0 {name: t0, url: 'http://127.0.0.1:9', model: x, modules: [m]}\n")
	for i := 1; i < 9; i++ {
		fmt.Fprintf(&b, "  - &t%d {<<: [%s], name: t%d}\n", i, tenTimes(fmt.Sprintf("*t%d", i-1)), i)
	}
	return b.String()
}

func tenTimes(s string) string {
	return strings.TrimSuffix(strings.Repeat(s+", ", 10), ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
