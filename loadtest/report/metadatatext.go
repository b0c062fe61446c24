package report

import (
	"fmt"
	"io"
	"maps"
	"slices"
	"strings"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// WriteMetadata prints the metadata as the report's header.
func WriteMetadata(m *serverwatch.Metadata, w io.Writer) {
	line := func(label string, val any) { fmt.Fprintf(w, "%-40s %v\n", label+":", val) }
	fmt.Fprintln(w, textfmt.Center(" Run metadata ", '='))
	s := m.Server
	switch {
	case s.Version != "":
		line("Server version", s.Version)
	case len(s.Sources) == 0:
		line("Server version", "not exposed (/version, /get_server_info, /props, /info, cache_config_info)")
	default:
		line("Server version", "not given")
	}
	if len(s.Engine) > 0 {
		var kv []string
		for _, k := range slices.Sorted(maps.Keys(s.Engine)) {
			kv = append(kv, k+"="+s.Engine[k])
		}
		line("Engine config", strings.Join(kv, " "))
		line("  from", strings.Join(s.Sources, ", "))
	}
	c := m.Client
	load := "n/a"
	if len(c.LoadAvg) == 3 {
		load = fmt.Sprintf("%.2f %.2f %.2f", c.LoadAvg[0], c.LoadAvg[1], c.LoadAvg[2])
	}
	line("Client", fmt.Sprintf("%s, %s/%s, %d CPUs (GOMAXPROCS %d), load %s", c.Hostname, c.OS, c.Arch, c.CPUs, c.GOMAXPROCS, load))
	line("llm-prober", c.Version) // its Go version is in it
}
