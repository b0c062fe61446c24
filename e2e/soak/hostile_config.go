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
		if k.name == metricsKind {
			// The knee file is kneefile.go's: relative to the config.
			b.WriteString("    server_metrics: {enabled: true}\n    capacity: {knee_file: " + kneeFileName + "}\n")
		}
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

// aliasedScalar is a 61 KB file whose 57 KB prompt is aliased 1,000
// times: 57 MB of text once expanded, to upload on every probe.
func aliasedScalar() string {
	var b strings.Builder
	b.WriteString("modules:\n  m:\n    api: completions\n    prompt: &p " + strings.Repeat("x", 57_000) + "\n")
	b.WriteString("    extra_body:\n      stop: [" + strings.TrimSuffix(strings.Repeat("*p, ", 1000), ", ") + "]\n")
	b.WriteString("targets:\n  - {name: t, url: 'http://127.0.0.1:9', model: x, modules: [m]}\n")
	return b.String()
}

// manyKeys is one flow mapping of 2,000,000 keys (17 MB): yaml.v3 took
// 4–8 s to build its nodes before the node budget could refuse it.
func manyKeys() string {
	var b strings.Builder
	b.WriteString("x: {")
	for i := range 2_000_000 {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, "k%d", i)
	}
	b.WriteString("}\n")
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
