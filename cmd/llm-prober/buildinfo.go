package main

import (
	"runtime/debug"

	"github.com/prometheus/common/version"
)

func init() { stampVersion(debug.ReadBuildInfo()) }

// stampVersion fills in, for a plain `go build` or `go install` (where
// scripts/build.sh set nothing at link time), the version and build date
// from the Go build info: the module's version (a tag, or a pseudo-version
// with the commit) or "(devel)", and the commit's time. The revision
// needs nothing: version.GetRevision reads vcs.revision itself. Done once
// at start-up so that --version, the start-up line, llm_prober_build_info
// and the User-Agent all say the same.
func stampVersion(bi *debug.BuildInfo, ok bool) {
	if !ok {
		return
	}
	if version.Version == "" {
		version.Version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.time" && version.BuildDate == "" {
			version.BuildDate = s.Value
		}
	}
}
