package main

import (
	"bufio"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"syscall"
)

// The knee file the metrics target's capacity block names (issue 32):
// good between the steps below, hostile during each.
const kneeFileName = "knee.json"

// goodKnee is a bench --sweep result's knee, as bench writes it first.
const goodKnee = `{"knee_goodput_percent": 99, "knee_request_rate": 9.5, "knee_achieved_request_rate": 8.25, "llm_prober_knee_status": "found", "points": []}` + "\n"

// kneeSteps are the knee-file reloads: each writes a hostile knee file
// under the running config and reloads, which must be refused within the
// reload bound (the config names the file: a load reads it), the running
// config kept; the good file is restored after each.
func (r *reloader) kneeSteps() []func() reloadResult {
	dir := filepath.Dir(r.file)
	knee := filepath.Join(dir, kneeFileName)
	step := func(what string, write func(string) error) func() reloadResult {
		return func() reloadResult {
			res := r.hostileFile(knee, write, what)
			// Removed first: opening a FIFO to write waits for a reader.
			if err := writeFresh(knee, goodKnee); err != nil && res.problem == "" {
				res.problem = "restoring the knee file: " + err.Error()
			}
			return res
		}
	}
	return []func() reloadResult{
		step("knee file: 60 MiB of '['", func(p string) error { return writeRepeated(p, `{"x": `, "[", 60<<20) }),
		step("knee file: 70 MiB, knee past the cap", func(p string) error {
			return writeRepeated(p, `{"points": [{"request_rate": 1, "ttfts": [`, `0.0123456,`, 70<<20)
		}),
		step("knee file: knee 5e-324", func(p string) error {
			return writeFresh(p, `{"knee_request_rate": 5e-324, "knee_achieved_request_rate": 5e-324}`)
		}),
		step("knee file: a FIFO", func(p string) error {
			_ = os.Remove(p)
			return syscall.Mkfifo(p, 0o600)
		}),
	}
}

// hostileFile writes a hostile file the running config names and reloads.
func (r *reloader) hostileFile(path string, write func(string) error, what string) reloadResult {
	if err := write(path); err != nil {
		return reloadResult{what: what, problem: err.Error()}
	}
	return r.refused(r.post(what))
}

// refused checks a reload that must fail fast and keep the running config.
func (r *reloader) refused(res reloadResult) reloadResult {
	switch {
	case res.problem != "":
	case res.status != http.StatusInternalServerError:
		res.problem = fmt.Sprintf("hostile config: HTTP %d, want 500", res.status)
	case res.took > r.o.hostile.reload:
		res.problem = fmt.Sprintf("hostile config refused after %s (bound %s)", res.took, r.o.hostile.reload)
	case res.shows != generationLabel(r.gen):
		res.problem = fmt.Sprintf("/config shows %s after a refused reload, want %s", res.shows, generationLabel(r.gen))
	}
	return res
}

// fileSDStep reloads generation gen with a file_sd discovery whose file
// holds 60,000 targets (3.9 MB, under any byte cap, over 5 × max_targets):
// the reload applies (discovery is not the config), the file is refused
// and counted, and the RSS bound holds (it cost 698 MiB, re-applied every
// second). The next good step drops the discovery again.
func (r *reloader) fileSDStep(gen int) func() reloadResult {
	return func() reloadResult {
		what := "file_sd: 60,000 targets"
		sd := filepath.Join(filepath.Dir(r.file), "sd.json")
		if err := writeSD(sd, 60_000); err != nil {
			return reloadResult{what: what, problem: err.Error()}
		}
		cfg := hostileConfig(r.o, r.targets, r.secret, gen) + fmt.Sprintf(`target_discovery:
  - name: too-many
    file_sd_configs: [{files: [%q], refresh_interval: 1s}]
    template: {modules: [chat], model: hostile}
`, sd)
		return r.goodText(gen, cfg, what)
	}
}

// writeFresh replaces whatever is at path with a regular file of text.
func writeFresh(path, text string) error {
	if err := os.Remove(path); err != nil && !os.IsNotExist(err) {
		return err
	}
	return os.WriteFile(path, []byte(text), 0o600)
}

// writeSD writes a file_sd file of n distinct loopback targets.
func writeSD(path string, n int) error {
	var b strings.Builder
	b.WriteString(`[{"labels": {"job": "sd"}, "targets": [`)
	for i := range n {
		if i > 0 {
			b.WriteByte(',')
		}
		fmt.Fprintf(&b, `"127.1.%d.%d:9"`, i/250, i%250+1)
	}
	b.WriteString("]}]\n")
	return os.WriteFile(path, []byte(b.String()), 0o600)
}

// writeRepeated writes head, then unit until the file holds size bytes.
func writeRepeated(path, head, unit string, size int) error {
	_ = os.Remove(path) // a FIFO left there would block the create
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 1<<20)
	w.WriteString(head)
	chunk := strings.Repeat(unit, max(1, (64<<10)/len(unit)))
	for n := len(head); n < size; n += len(chunk) {
		w.WriteString(chunk)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
