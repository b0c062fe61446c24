package targets

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/go-kit/log"
	"github.com/go-kit/log/level"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/discovery/file"
	"github.com/prometheus/prometheus/discovery/targetgroup"

	"github.com/llm-prober/llm-prober/internal/logadapter"
)

// MaxFileSDBytes caps one file_sd file, as MaxSDBodyBytes caps an http_sd
// answer: Prometheus's file discovery reads a file whole and decodes it
// (a 50 MB file cost 1.9 GB).
const MaxFileSDBytes = MaxSDBodyBytes

// cappedFileSD is a file_sd_configs item whose files reach Prometheus's
// file discovery only through a size cap. Prometheus's discovery has no
// hook for it, so each matched file is copied, read at most to the cap,
// into a private directory that the stock file discovery watches: a file
// over the cap is never read past it, its last good copy stays (as a
// failing http_sd keeps its last answer), and it is counted in
// llm_prober_discovery_files_too_large. Targets keep the real file's path
// in __meta_filepath.
type cappedFileSD struct {
	*file.SDConfig
	entry string
	limit int64
	// maxTargets caps the targets one file lists (0: none): a 3.9 MB file
	// of 60,000 targets, under the byte cap, cost 698 MiB to decode and
	// relabel. A file over it is refused as one over the byte cap is.
	maxTargets int
	tooBig     *prometheus.GaugeVec // llm_prober_discovery_files_too_large{discovery}
	logger     log.Logger           // the Fleet's, unstamped (as NewFleet's base)
}

// capFileSD wraps the file_sd items of an entry's configs; logger is the
// Fleet's, unstamped.
func capFileSD(entry string, cfgs discovery.Configs, maxTargets int, tooBig *prometheus.GaugeVec, logger log.Logger) discovery.Configs {
	out := make(discovery.Configs, len(cfgs))
	for i, c := range cfgs {
		if fc, ok := c.(*file.SDConfig); ok {
			c = &cappedFileSD{SDConfig: fc, entry: entry, limit: MaxFileSDBytes, maxTargets: maxTargets, tooBig: tooBig, logger: logger}
		}
		out[i] = c
	}
	return out
}

// NewDiscoverer starts nothing: Run does.
func (c *cappedFileSD) NewDiscoverer(opts discovery.DiscovererOptions) (discovery.Discoverer, error) {
	dir, err := os.MkdirTemp("", "llm-prober-file-sd-")
	if err != nil {
		return nil, err
	}
	var pats []string
	for _, ext := range []string{".json", ".yml", ".yaml"} {
		pats = append(pats, filepath.Join(dir, "*"+ext))
	}
	base := c.logger
	if base == nil {
		base = log.NewNopLogger()
	}
	d := &cappedFile{cfg: c, dir: dir, logger: logadapter.Stamp(base), copies: map[string]string{}, names: map[string]string{},
		refused: map[string]bool{}, counted: map[string]counted{}}
	// The file discovery logs through the Fleet's logger as the manager's
	// discoverers do (with the attributes the manager gives them), its
	// errors naming the real file, not the private copy.
	logger := logadapter.Slog(realPaths{base, d}).With("discovery", "file", "config", opts.SetName)
	if d.inner, err = file.NewDiscovery(&file.SDConfig{Files: pats, RefreshInterval: c.RefreshInterval}, logger, opts.Metrics); err != nil {
		_ = os.RemoveAll(dir)
		return nil, err
	}
	return d, nil
}

// cappedFile is the running discoverer of a cappedFileSD.
type cappedFile struct {
	cfg    *cappedFileSD
	dir    string
	inner  discovery.Discoverer
	logger log.Logger // its own lines (the Fleet's, stamped), each with discovery=file config=<entry> after msg

	mu      sync.Mutex
	copies  map[string]string  // private copy's path → the real file's, while it is matched
	names   map[string]string  // every private copy's path → the real file's, for rename
	refused map[string]bool    // real files over the cap, to log once
	counted map[string]counted // real file → its last content's target count
}

func (d *cappedFile) Run(ctx context.Context, up chan<- []*targetgroup.Group) {
	defer func() { _ = os.RemoveAll(d.dir) }()
	d.sync()
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		level.Error(d.logger).Log("msg", "file_sd: cannot watch the files; reading them every refresh_interval",
			"discovery", "file", "config", d.cfg.entry, "err", err)
	} else {
		defer watcher.Close()
		for _, p := range d.cfg.Files {
			_ = watcher.Add(filepath.Dir(p)) // a missing directory is file_sd's error too
		}
	}
	ch := make(chan []*targetgroup.Group)
	go d.inner.Run(ctx, ch)
	// The real files are read again every refresh_interval besides on change.
	tick := time.NewTicker(max(time.Duration(d.cfg.RefreshInterval), time.Second))
	defer tick.Stop()
	var events <-chan fsnotify.Event
	var errs <-chan error
	if watcher != nil {
		events, errs = watcher.Events, watcher.Errors
	}
	for {
		select {
		case <-ctx.Done():
			return
		case ev := <-events:
			if d.matches(ev.Name) { // not a log file written beside them
				d.sync()
			}
		case err := <-errs: // an overflow: read everything again
			level.Debug(d.logger).Log("msg", "file_sd: watch error; reading every file again",
				"discovery", "file", "config", d.cfg.entry, "err", err)
			d.sync()
		case <-tick.C:
			d.sync()
		case tgs := <-ch:
			d.rename(tgs)
			select {
			case up <- tgs:
			case <-ctx.Done():
				return
			}
		}
	}
}

// matches reports whether name is one of the files the patterns match.
func (d *cappedFile) matches(name string) bool {
	for _, pat := range d.cfg.Files {
		if ok, _ := filepath.Match(pat, name); ok {
			return true
		}
	}
	return false
}

// sync copies every matched file under the cap into the private
// directory when it changed, and removes the copies of files gone.
func (d *cappedFile) sync() {
	seen, seenFiles := map[string]bool{}, map[string]bool{}
	over := 0
	for _, pat := range d.cfg.Files {
		files, _ := filepath.Glob(pat) // a bad pattern is refused by the config check
		for _, f := range files {
			dst := d.copyPath(f)
			seen[dst], seenFiles[f] = true, true
			if d.copyCapped(f, dst) {
				over++
			}
		}
	}
	d.mu.Lock()
	for dst := range d.copies {
		if !seen[dst] {
			_ = os.Remove(dst)
			delete(d.copies, dst)
		}
	}
	for f := range d.refused {
		if !seenFiles[f] {
			delete(d.refused, f) // logged again if it comes back too large
		}
	}
	for f := range d.counted {
		if !seenFiles[f] {
			delete(d.counted, f)
		}
	}
	d.mu.Unlock()
	if d.cfg.tooBig != nil {
		d.cfg.tooBig.WithLabelValues(d.cfg.entry).Set(float64(over))
	}
}

// copyPath is f's private copy: a hash of its path, with its extension
// (which tells file_sd how to decode it).
func (d *cappedFile) copyPath(f string) string {
	h := fnv.New64a()
	_, _ = io.WriteString(h, f)
	return filepath.Join(d.dir, fmt.Sprintf("%016x%s", h.Sum64(), strings.ToLower(filepath.Ext(f))))
}

// copyCapped reads f up to the cap and writes it to dst if it changed; it
// reports whether f is over the cap (its last good copy is left as is).
func (d *cappedFile) copyCapped(f, dst string) (tooBig bool) {
	fh, err := os.Open(f)
	if err != nil {
		return false // gone, or unreadable: file_sd's own read of the copy keeps its last state
	}
	defer fh.Close()
	// A file over the cap by its size is not read at all; one that grows
	// while it is read still stops one byte past the cap.
	n := d.cfg.limit
	if st, err := fh.Stat(); err == nil {
		if st.Size() > d.cfg.limit {
			return d.refuse(f)
		}
		n = st.Size()
	}
	buf := bytes.NewBuffer(make([]byte, 0, n+1))
	if _, err := io.Copy(buf, io.LimitReader(fh, d.cfg.limit+1)); err != nil {
		return false
	}
	if int64(buf.Len()) > d.cfg.limit {
		return d.refuse(f)
	}
	b := buf.Bytes()
	if n := d.targets(f, b); d.cfg.maxTargets > 0 && n > d.cfg.maxTargets {
		return d.refuseTargets(f, n)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	delete(d.refused, f)
	d.copies[dst], d.names[dst] = f, f
	if old, err := os.ReadFile(dst); err == nil && bytes.Equal(old, b) {
		return false
	}
	// Written aside and renamed, so that file_sd never reads half a file.
	tmp := dst + ".tmp"
	if err := os.WriteFile(tmp, b, 0o600); err == nil {
		_ = os.Rename(tmp, dst)
	}
	return false
}

// refuse notes that f is over the cap, logging it once until it shrinks.
func (d *cappedFile) refuse(f string) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	if !d.refused[f] {
		level.Error(d.logger).Log("msg", "file_sd file over the size cap: its targets are not updated until it shrinks",
			"discovery", "file", "config", d.cfg.entry, "file", f, "limit_bytes", d.cfg.limit)
		d.refused[f] = true
	}
	return true
}

// realPath is the real file of a private copy.
func (d *cappedFile) realPath(copyPath string) (string, bool) {
	d.mu.Lock()
	defer d.mu.Unlock()
	orig, ok := d.names[copyPath]
	return orig, ok
}

// rename gives the groups of private copies their real file's path, in
// their source and __meta_filepath, as file_sd would have.
func (d *cappedFile) rename(tgs []*targetgroup.Group) {
	for _, tg := range tgs {
		if tg == nil {
			continue
		}
		i := strings.LastIndexByte(tg.Source, ':')
		if i < 0 {
			continue
		}
		orig, ok := d.realPath(tg.Source[:i])
		if !ok {
			continue
		}
		tg.Source = orig + tg.Source[i:]
		if tg.Labels != nil {
			if _, ok := tg.Labels[model.MetaLabelPrefix+"filepath"]; ok {
				tg.Labels[model.MetaLabelPrefix+"filepath"] = model.LabelValue(orig)
			}
		}
	}
}

// realPaths writes the private copies' paths in the file discovery's
// lines as the real files'. It sits under logadapter.Slog, which hands it
// a new slice for every line.
type realPaths struct {
	next log.Logger
	d    *cappedFile
}

func (p realPaths) Log(keyvals ...any) error {
	for i := 1; i < len(keyvals); i += 2 {
		if s, ok := keyvals[i].(string); ok {
			if orig, ok := p.d.realPath(s); ok {
				keyvals[i] = orig
			}
		}
	}
	return p.next.Log(keyvals...)
}
