//go:build !nokubernetes

package config

// kubernetes_sd_configs: client-go is 28 MB of the 44 MB binary; build
// with -tags nokubernetes for a slim binary that has file and http only.
import _ "github.com/prometheus/prometheus/discovery/kubernetes" // registers kubernetes_sd_configs
