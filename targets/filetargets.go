package targets

import (
	"encoding/json"
	"hash/fnv"
	"path/filepath"
	"strings"

	"github.com/go-kit/log/level"
	"gopkg.in/yaml.v3"
)

// counted is a file's content hash and the targets it lists: a file is
// read every refresh, and is counted again only when it changed.
type counted struct {
	sum     uint64
	targets int
}

// targets is how many targets the file_sd content b of f lists; 0 where
// it does not decode (file_sd reports that itself) or nothing caps it.
func (d *cappedFile) targets(f string, b []byte) int {
	if d.cfg.maxTargets <= 0 {
		return 0
	}
	h := fnv.New64a()
	_, _ = h.Write(b)
	sum := h.Sum64()
	d.mu.Lock()
	c, ok := d.counted[f]
	d.mu.Unlock()
	if ok && c.sum == sum {
		return c.targets
	}
	n := countTargets(b, filepath.Ext(f))
	d.mu.Lock()
	if d.counted == nil {
		d.counted = map[string]counted{}
	}
	d.counted[f] = counted{sum: sum, targets: n}
	d.mu.Unlock()
	return n
}

// countTargets decodes only the target lists of a file_sd file.
func countTargets(b []byte, ext string) int {
	var groups []struct {
		Targets []string `json:"targets" yaml:"targets"`
	}
	var err error
	if strings.EqualFold(ext, ".json") {
		err = json.Unmarshal(b, &groups)
	} else {
		err = yaml.Unmarshal(b, &groups)
	}
	if err != nil {
		return 0
	}
	n := 0
	for _, g := range groups {
		n += len(g.Targets)
	}
	return n
}

// refuseTargets notes that f lists more targets than the cap, logging it
// once until it shrinks; its last good copy stays.
func (d *cappedFile) refuseTargets(f string, n int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.refused[f] {
		level.Error(d.logger).Log("msg", "file_sd file lists more targets than allowed (5 × the entry's max_targets): its targets are not updated until it lists fewer",
			"discovery", "file", "config", d.cfg.entry, "file", f, "targets", n, "limit_targets", d.cfg.maxTargets)
		d.refused[f] = true
	}
	return true
}
