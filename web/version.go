package web

import (
	"strings"

	"github.com/prometheus/common/version"
)

// versionLine says which build this is, for the status page.
func versionLine() string {
	v := version.Version
	if v == "" {
		v = "(devel)"
	}
	parts := []string{"version " + v, "revision " + version.GetRevision()}
	if version.Branch != "" {
		parts = append(parts, "branch "+version.Branch)
	}
	if version.BuildDate != "" {
		parts = append(parts, "built "+version.BuildDate)
	}
	return strings.Join(append(parts, version.GoVersion), ", ")
}
