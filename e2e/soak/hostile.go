package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"time"
)

// hostileRun is what one --hostile run observed, for the report.
type hostileRun struct {
	o                  options
	start              time.Time
	rows               *time.Ticker // prints a row
	calmEnd, hostStart time.Time    // baseline window ends at calmEnd
	hostEnd, settleEnd time.Time
	w                  *watch
	probes             map[string]probeRecord
	probeErrs          []string
	failures           map[string]map[string]float64 // target -> reason -> count, at the end
	probesTotal        map[string]float64            // target -> probes
	lateStarts         [3]float64                    // probes started: all, > 50ms late, > 100ms late
	reloads            []reloadResult
	servers            serverStats
	problems           []string
}

// hostileSoak runs the prober against the thirteen hostile targets: a calm
// phase for the baseline, the hostile phase with reloads, a calm phase to
// settle, then checks every bound.
func hostileSoak(o options) error {
	dir, cleanup, err := workDir(o)
	if err != nil {
		return err
	}
	defer cleanup()
	logFile, err := os.Create(filepath.Join(dir, "prober.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	srv, err := startServers(logFile)
	if err != nil {
		return err
	}
	defer func() { _ = srv.stop() }()
	secret := filepath.Join(dir, "secret")
	if err := os.WriteFile(secret, []byte(redirectSecret), 0o600); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, kneeFileName), []byte(goodKnee), 0o600); err != nil {
		return err
	}
	cfgFile := filepath.Join(dir, "hostile.yml")
	if err := os.WriteFile(cfgFile, []byte(hostileConfig(o, srv.info.Targets, secret, 1)), 0o600); err != nil {
		return err
	}
	proc, err := startProber(o.prober, cfgFile, logFile)
	if err != nil {
		return err
	}
	defer proc.kill()
	if err := waitReady(proc.base, proc.exited); err != nil {
		return err
	}
	fmt.Printf("hostile soak: 10 targets, interval %s, timeout %s, hostile for %s (calm %s before, %s after); prober pid %d, servers pid %d, log %s\n",
		o.interval, o.timeout, o.duration, o.hostile.calm, o.hostile.settle, proc.cmd.Process.Pid, srv.cmd.Process.Pid, logFile.Name())
	printLoad("start")

	h := &hostileRun{o: o, w: startWatch(proc.base, proc.cmd.Process.Pid)}
	pl := startProbeLog(proc.base)
	rl := &reloader{o: o, file: cfgFile, base: proc.base, targets: srv.info.Targets, secret: secret, w: h.w, gen: 1}
	if err := h.phases(proc, srv, rl); err != nil {
		h.w.close()
		pl.close()
		return err
	}
	h.w.close()
	h.probes = pl.close()
	h.probeErrs = pl.errs
	if err := h.finalCounters(proc.base); err != nil {
		h.problems = append(h.problems, err.Error())
	}
	if h.servers, err = srv.stats(); err != nil {
		h.problems = append(h.problems, "server stats: "+err.Error())
	}
	if err := srv.stop(); err != nil {
		h.problems = append(h.problems, "hostile servers: "+err.Error())
	}
	if err := stop(proc.cmd, proc.exited); err != nil {
		h.problems = append(h.problems, err.Error())
	}
	if p := scanHostileLog(logFile.Name(), 8); p != "" {
		h.problems = append(h.problems, "prober log: "+p)
	}
	printLoad("end")
	h.report()
	fmt.Println("\nplan and bench on hostile inputs (issue 32), one at a time, the prober stopped:")
	if err := inputsChild(h.o, filepath.Join(dir, "inputs")); err != nil {
		h.problems = append(h.problems, "hostile inputs: "+err.Error())
	}
	if len(h.problems) > 0 {
		return errors.New(strings.Join(h.problems, "\n"))
	}
	return nil
}

// phases runs calm, hostile (with its reloads) and settle, printing a
// row every 30s.
func (h *hostileRun) phases(proc *proberProcess, srv *serverProcess, rl *reloader) error {
	start := time.Now()
	h.start = start
	h.rows = time.NewTicker(30 * time.Second)
	defer h.rows.Stop()
	rowHeader()
	if err := h.wait(proc, start, h.o.hostile.calm); err != nil {
		return err
	}
	h.calmEnd = time.Now()
	if err := srv.setHostile(true); err != nil {
		return err
	}
	h.hostStart = time.Now()
	fmt.Printf("%8s  targets hostile\n", since(start))
	steps := []func() reloadResult{
		func() reloadResult { return rl.good(2, "good change (generation 2)") },
		func() reloadResult { return rl.hostile(aliasBomb(), "alias bomb") },
		func() reloadResult { return rl.good(2, "restore generation 2") },
		func() reloadResult { return rl.hostile(aliasedScalar(), "scalar aliased 1,000 times") },
		func() reloadResult { return rl.good(2, "restore generation 2") },
		func() reloadResult { return rl.hostile(mergeChain(), "merge-key chain") },
		func() reloadResult { return rl.good(2, "restore generation 2") },
		func() reloadResult { return rl.hostile(manyKeys(), "2,000,000-key mapping") },
		func() reloadResult { return rl.good(2, "restore generation 2") },
	}
	// Issue 32's: hostile knee files under the running config, then a
	// file_sd file over the target cap.
	steps = append(steps, rl.kneeSteps()...)
	steps = append(steps, rl.fileSDStep(3),
		func() reloadResult { return rl.good(3, "generation 3, no discovery") })
	// At 1/5 the good change, at 2/5 and 3/5 two hostile configs and their
	// restores, and the knee files; at 4/5 another good change, with the
	// file_sd file, and without.
	at := []int{1, 2, 2, 2, 2, 3, 3, 3, 3, 3, 3, 3, 3, 4, 5}
	for i, step := range steps {
		if err := h.wait(proc, h.hostStart, h.o.duration*time.Duration(at[i])/5); err != nil {
			return err
		}
		r := step()
		r.at = time.Since(h.hostStart)
		h.reloads = append(h.reloads, r)
		fmt.Printf("%8s  reload: %s: HTTP %d in %s, /config shows %s %s\n", since(start), r.what, r.status,
			r.took.Round(time.Microsecond), r.shows, r.problem)
	}
	if err := h.wait(proc, h.hostStart, h.o.duration); err != nil {
		return err
	}
	if err := srv.setHostile(false); err != nil {
		return err
	}
	h.hostEnd = time.Now()
	fmt.Printf("%8s  targets calm\n", since(start))
	if err := h.wait(proc, h.hostEnd, h.o.hostile.settle); err != nil {
		return err
	}
	h.settleEnd = time.Now()
	return nil
}

// wait sleeps until from+d, printing a row at every tick of h.rows; it
// fails if the prober exits.
func (h *hostileRun) wait(proc *proberProcess, from time.Time, d time.Duration) error {
	deadline := time.NewTimer(time.Until(from.Add(d)))
	defer deadline.Stop()
	for {
		select {
		case err := <-proc.exited:
			proc.exited <- err // for the deferred kill
			return fmt.Errorf("prober exited early: %v", err)
		case <-h.rows.C:
			h.row()
		case <-deadline.C:
			return nil
		}
	}
}

func since(t time.Time) string { return time.Since(t).Round(time.Second).String() }

func printLoad(when string) {
	if b, err := exec.Command("uptime").Output(); err == nil {
		fmt.Printf("load at %s: %s", when, b)
	}
}

func workDir(o options) (string, func(), error) {
	if o.workDir != "" {
		return o.workDir, func() {}, os.MkdirAll(o.workDir, 0o755)
	}
	dir, err := os.MkdirTemp("", "llm-prober-soak")
	return dir, func() { os.RemoveAll(dir) }, err
}
