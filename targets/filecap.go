package targets

import (
	"bytes"
	"context"
	"fmt"
	"hash/fnv"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/fsnotify/fsnotify"
	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/common/model"
	"github.com/prometheus/prometheus/discovery"
	"github.com/prometheus/prometheus/discovery/file"
	"github.com/prometheus/prometheus/discovery/targetgroup"
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
	entry  string
	limit  int64
	tooBig *prometheus.GaugeVec // llm_prober_discovery_files_too_large{discovery}
}

// capFileSD wraps the file_sd items of an entry's configs.
func capFileSD(entry string, cfgs discovery.Configs, tooBig *prometheus.GaugeVec) discovery.Configs {
	out := make(discovery.Configs, len(cfgs))
	for i, c := range cfgs {
		if fc, ok := c.(*file.SDConfig); ok {
			c = &cappedFileSD{SDConfig: fc, entry: entry, limit: MaxFileSDBytes, tooBig: tooBig}
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
	d := &cappedFile{cfg: c, dir: dir, logger: opts.Logger, copies: map[string]string{}, names: map[string]string{}, refused: map[string]bool{}}
	// Its errors name the real file, not the private copy.
	logger := slog.New(pathHandler{opts.Logger.Handler(), d})
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
	logger *slog.Logger

	mu      sync.Mutex
	copies  map[string]string // private copy's path → the real file's, while it is matched
	names   map[string]string // every private copy's path → the real file's, for rename
	refused map[string]bool   // real files over the cap, to log once
}

func (d *cappedFile) Run(ctx context.Context, up chan<- []*targetgroup.Group) {
	defer func() { _ = os.RemoveAll(d.dir) }()
	d.sync()
	watcher, err := fsnotify.NewWatcher()
	if err != nil {
		d.logger.Error("file_sd: cannot watch the files; reading them every refresh_interval", "err", err)
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
			d.logger.Debug("file_sd: watch error; reading every file again", "err", err)
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
		d.logger.Error("file_sd file over the size cap: its targets are not updated until it shrinks", "file", f, "limit_bytes", d.cfg.limit)
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

// pathHandler writes the private copies' paths in the file discovery's
// log records as the real files'.
type pathHandler struct {
	slog.Handler
	d *cappedFile
}

func (h pathHandler) Handle(ctx context.Context, r slog.Record) error {
	out := slog.NewRecord(r.Time, r.Level, r.Message, r.PC)
	r.Attrs(func(a slog.Attr) bool {
		if a.Value.Kind() == slog.KindString {
			if orig, ok := h.d.realPath(a.Value.String()); ok {
				a.Value = slog.StringValue(orig)
			}
		}
		out.AddAttrs(a)
		return true
	})
	return h.Handler.Handle(ctx, out)
}

func (h pathHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return pathHandler{h.Handler.WithAttrs(as), h.d}
}

func (h pathHandler) WithGroup(name string) slog.Handler {
	return pathHandler{h.Handler.WithGroup(name), h.d}
}
