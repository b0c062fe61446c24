package main

import (
	"runtime/debug"
	"strings"

	"github.com/prometheus/common/version"
)

// versionLine says which build this is, also for a plain `go build` or
// `go install`, where scripts/build.sh set no version: then the module
// version and VCS stamp from the Go build info stand in.
func versionLine() string {
	v, date := version.Version, version.BuildDate
	if bi, ok := debug.ReadBuildInfo(); ok {
		if v == "" {
			v = bi.Main.Version // "(devel)", or a tag or pseudo-version
		}
		for _, s := range bi.Settings {
			if s.Key == "vcs.time" && date == "" {
				date = s.Value
			}
		}
	}
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"version " + v, "revision " + version.GetRevision()}
	if version.Branch != "" {
		parts = append(parts, "branch "+version.Branch)
	}
	if date != "" {
		parts = append(parts, "built "+date)
	}
	return strings.Join(append(parts, version.GoVersion), ", ")
}
