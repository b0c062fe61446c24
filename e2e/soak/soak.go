package main

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

func soak(o options) error {
	mockURL, stopMock, err := startMock(o.faultRate)
	if err != nil {
		return err
	}
	defer stopMock()
	closed, err := closedPort()
	if err != nil {
		return err
	}
	dir := o.workDir
	if dir == "" {
		if dir, err = os.MkdirTemp("", "llm-prober-soak"); err != nil {
			return err
		}
		defer os.RemoveAll(dir)
	}
	cfgFile := filepath.Join(dir, "soak.yml")
	if err := os.WriteFile(cfgFile, []byte(renderConfig(o, mockURL, closed, 0)), 0o600); err != nil {
		return err
	}
	logFile, err := os.Create(filepath.Join(dir, "prober.log"))
	if err != nil {
		return err
	}
	defer logFile.Close()
	proc, err := startProber(o.prober, cfgFile, logFile)
	if err != nil {
		return err
	}
	defer proc.kill()
	cmd, exited, base := proc.cmd, proc.exited, proc.base
	if err := waitReady(base, exited); err != nil {
		return err
	}
	fmt.Printf("soak: %d targets, interval %s, timeout %s, fault rate %.2f, %s; mock %s; prober pid %d, log %s\n",
		o.targets, o.interval, o.timeout, o.faultRate, o.duration, mockURL, cmd.Process.Pid, logFile.Name())
	header()

	var problems []string
	var samples []*sample
	start := time.Now()
	reloaded := false
	tick := time.NewTicker(o.sample)
	defer tick.Stop()
	for done := false; !done; {
		select {
		case err := <-exited:
			return fmt.Errorf("prober exited early: %v (see %s)", err, logFile.Name())
		case <-tick.C:
		}
		elapsed := time.Since(start)
		done = elapsed >= o.duration
		s, err := scrape(base+"/metrics", cmd.Process.Pid, elapsed.Round(time.Second))
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: scrape: %v", elapsed.Round(time.Second), err))
			continue
		}
		if n := len(samples); n > 0 {
			for _, d := range decreased(samples[n-1], s) {
				problems = append(problems, fmt.Sprintf("%s: counter %s", s.at, d))
			}
		}
		var prev *sample
		if n := len(samples); n > 0 {
			prev = samples[n-1]
		}
		samples = append(samples, s)
		row(s, prev)
		if !reloaded && elapsed >= o.duration/2 {
			if err := reload(o, cfgFile, mockURL, closed, base); err != nil {
				return err
			}
			reloaded = true
			fmt.Printf("%8s  reload: every other target's timeout changed (their jobs restart)\n", "")
		}
	}
	if err := stop(cmd, exited); err != nil {
		problems = append(problems, err.Error())
	}
	if p := scanLog(logFile.Name()); p != "" {
		problems = append(problems, "prober log: "+p)
	}
	summary(samples)
	if len(problems) > 0 {
		if len(problems) > 20 {
			problems = append(problems[:20], fmt.Sprintf("... and %d more", len(problems)-20))
		}
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

func waitReady(base string, exited chan error) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		select {
		case err := <-exited:
			return fmt.Errorf("prober exited at start: %v", err)
		default:
		}
		if resp, err := http.Get(base + "/-/ready"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(200 * time.Millisecond)
	}
	return errors.New("prober not ready after 30s")
}

func reload(o options, cfgFile, mockURL, closed, base string) error {
	if err := os.WriteFile(cfgFile, []byte(renderConfig(o, mockURL, closed, 1)), 0o600); err != nil {
		return err
	}
	resp, err := http.Post(base+"/-/reload", "", nil)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("reload: HTTP %d", resp.StatusCode)
	}
	return nil
}

// stop sends SIGTERM and expects a clean exit within the shutdown timeout.
func stop(cmd *exec.Cmd, exited chan error) error {
	_ = cmd.Process.Signal(syscall.SIGTERM)
	select {
	case err := <-exited:
		if err != nil {
			return fmt.Errorf("prober exit after SIGTERM: %v", err)
		}
		return nil
	case <-time.After(30 * time.Second):
		_ = cmd.Process.Kill()
		<-exited //nolint:errcheck // killed: its exit status says nothing
		return errors.New("prober did not exit within 30s of SIGTERM")
	}
}

// scanLog reports the first line of a panic, race or fatal error.
func scanLog(path string) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	for _, bad := range []string{"panic:", "DATA RACE", "fatal error:", "level=error"} {
		if i := bytes.Index(b, []byte(bad)); i >= 0 {
			end := bytes.IndexByte(b[i:], '\n')
			if end < 0 {
				end = len(b) - i
			}
			return string(b[i : i+end])
		}
	}
	return ""
}

func header() {
	fmt.Printf("%8s %9s %9s %10s %5s %9s %8s %7s %9s  %s\n",
		"elapsed", "rss_MiB", "heap_MiB", "goroutines", "fds", "probes", "probes/s", "inflight", "skipped", "failures by reason")
}

func row(s, prev *sample) {
	rate := ""
	if prev != nil {
		rate = fmt.Sprintf("%.1f", (s.probes-prev.probes)/(s.at-prev.at).Seconds())
	}
	fmt.Printf("%8s %9.1f %9.1f %10.0f %5.0f %9.0f %8s %7.0f %9.0f  %s\n",
		s.at, s.rss/(1<<20), s.heap/(1<<20), s.goroutines, s.fds, s.probes, rate, s.inFlight, s.skipped, reasons(s.failures))
}

func reasons(m map[string]float64) string {
	keys := make([]string, 0, len(m))
	for k, v := range m {
		if v > 0 {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%.0f ", k, m[k])
	}
	return b.String()
}
