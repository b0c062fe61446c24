package cfgsweep

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"github.com/llm-prober/llm-prober/internal/textfmt"
	"github.com/llm-prober/llm-prober/loadtest/sweep"
)

// DefaultStopGrace is how long a server has to exit after SIGTERM before
// its group is killed: vLLM frees its GPUs in seconds.
const DefaultStopGrace = 30 * time.Second

// Options drive a configuration sweep.
type Options struct {
	Configs []Configuration
	// Server starts a server per configuration; else Apply applies one to
	// a server bench does not start, returning once it is rolled out.
	Server, Apply *Template
	// URL is the server's base URL; {port} is the port chosen for it.
	URL          string
	ReadyTimeout time.Duration
	StopGrace    time.Duration
	Client       *http.Client
	// TokensPerRequest (prompt + output) sizes the KV-limited concurrency.
	TokensPerRequest int
	KneeGoodput      float64
	Plan             Plan
	// Previous is a result being resumed: its rows (but interrupted ones)
	// are kept and their configurations skipped.
	Previous *Result
	// Measure runs the rate sweep against url (the driver's --sweep).
	Measure func(ctx context.Context, c Configuration, url string) (*sweep.Sweep, error)
	// Saved is called after each row (the driver writes the file).
	Saved func(*Result) error
	// LogFiles, if not empty, is where each started server's whole output
	// goes as well as the ring: LogFiles + ".server-N.log" for the Nth
	// configuration, each up to MaxLogFileBytes.
	LogFiles string
	Log      io.Writer

	ports func() (int, error) // freePort; tests set it
}

// Command is the template the result is tied to.
func (o *Options) template() *Template {
	if o.Server != nil {
		return o.Server
	}
	return o.Apply
}

// Check fails before anything runs: a template without its parameters,
// a parameter it does not use, a previous result of another command.
func (o *Options) Check() error {
	t := o.template()
	if t == nil {
		return errors.New("no server command")
	}
	if err := t.Check(o.Configs, o.Server != nil); err != nil {
		return err
	}
	if o.Previous != nil && len(o.Previous.Rows) > 0 && o.Previous.Command != t.Raw {
		return fmt.Errorf("--resume: the file was written for another command (%q)", textfmt.SafeLine(o.Previous.Command))
	}
	return nil
}

// DryRun writes each configuration's command and URL, starting nothing
// (ports are shown as {port}).
func (o *Options) DryRun(w io.Writer) {
	t := o.template()
	for i, c := range o.Configs {
		cmd := t.Show(c, 0)
		fmt.Fprintf(w, "%d/%d %s\n  %s\n", i+1, len(o.Configs), textfmt.SafeLine(c.Label()), textfmt.SafeLine(cmd))
	}
}

// Run runs every configuration not already in Previous, in order, and
// returns the result so far; an interrupt ends it with ctx's error after
// the started server is stopped.
func Run(ctx context.Context, o Options) (*Result, error) {
	if o.StopGrace <= 0 {
		o.StopGrace = DefaultStopGrace
	}
	t := o.template()
	res := &Result{Mode: "start", Command: t.Raw, KneeGoodput: o.KneeGoodput, Plan: o.Plan}
	if o.Server == nil {
		res.Mode = "apply"
	}
	done := map[string]Row{}
	if o.Previous != nil {
		for _, r := range o.Previous.Rows {
			if r.Status != StatusInterrupted {
				done[r.Key] = r
			}
		}
	}
	for i, c := range o.Configs {
		if r, ok := done[c.Key()]; ok {
			fmt.Fprintf(o.Log, "configuration %d/%d %s: in the result already (--resume), skipped\n", i+1, len(o.Configs), c.Label())
			res.Rows = append(res.Rows, r)
			continue
		}
		fmt.Fprintf(o.Log, "configuration %d/%d %s\n", i+1, len(o.Configs), c.Label())
		row := o.runOne(ctx, i, c)
		if row.Status == StatusInterrupted || ctx.Err() != nil {
			// Not a result: --resume runs it again.
			res.Best = choose(res.Rows, o.Plan, o.KneeGoodput)
			return res, ctx.Err()
		}
		res.Rows = append(res.Rows, row)
		res.Best = choose(res.Rows, o.Plan, o.KneeGoodput)
		if row.Status == StatusFailed {
			fmt.Fprintf(o.Log, "configuration %s failed: %s\n", c.Label(), row.Error)
		}
		if o.Saved != nil {
			if err := o.Saved(res); err != nil {
				return res, err
			}
		}
	}
	return res, nil
}

// portTries bounds the starts of one configuration that lose its port
// to another process between freePort and the server's bind.
const portTries = 3

// runOne runs c, on another port when a started server exited before it
// was ready because another process took its port in between (freePort
// only finds a port free at that moment; a server cannot be handed a
// bound socket).
func (o *Options) runOne(ctx context.Context, i int, c Configuration) Row {
	for try := 1; ; try++ {
		row, port, lost := o.runOnce(ctx, i, c)
		if !lost || try == portTries {
			return row
		}
		fmt.Fprintf(o.Log, "configuration %s: port %d was taken by another process before the server bound it; starting it again on another port\n", c.Label(), port)
	}
}

// runOnce starts (or applies) c, waits for it, measures it and stops it.
// lost reports a started server that exited before it was ready while
// another process holds its port.
func (o *Options) runOnce(ctx context.Context, i int, c Configuration) (row Row, port int, lost bool) {
	row = Row{Name: c.Name, Params: c.Params, Key: c.Key()}
	ports := o.ports
	if ports == nil {
		ports = freePort
	}
	port, err := ports()
	if err != nil {
		row.Status, row.Error = StatusFailed, "no free port: "+err.Error()
		return row, port, false
	}
	url := strings.ReplaceAll(o.URL, "{port}", strconv.Itoa(port))
	argv := o.template().Argv(c, port)
	row.Command = o.template().Show(c, port)
	var exited <-chan struct{}
	var proc *Process
	if o.Server != nil {
		var file *logFile
		if o.LogFiles != "" {
			path := fmt.Sprintf("%s.server-%d.log", o.LogFiles, i+1)
			if file, err = createLogFile(path); err != nil {
				fmt.Fprintf(o.Log, "the server's log is not kept on disk: %v\n", err)
			} else {
				row.LogFile = filepath.Base(path)
			}
		}
		if proc, err = startProcess(argv, file); err != nil {
			row.Status, row.Error = StatusFailed, "start: "+err.Error()
			return row, port, false
		}
		defer func() {
			proc.Stop(o.StopGrace)
			if err := proc.LogFileErr(); err != nil {
				fmt.Fprintf(o.Log, "the server's log file %s is incomplete: %v\n", row.LogFile, err)
			}
		}()
		exited = proc.Exited()
	} else {
		tail, err := runCommand(ctx, argv, o.ReadyTimeout)
		if ctx.Err() != nil {
			row.Status = StatusInterrupted
			return row, port, false
		}
		if err != nil {
			row.Status, row.Error, row.LogTail = StatusFailed, "--server-apply-cmd: "+err.Error(), tail
			return row, port, false
		}
	}
	failed := func(what string, err error) Row {
		row.Status, row.Error = StatusFailed, what+err.Error()
		if proc != nil {
			select {
			case <-exited: // on its own: how it ended is the row's news
				row.ExitStatus = proc.Status()
			default:
			}
			// Stopped here, so that the log is the final one.
			proc.Stop(o.StopGrace)
			row.LogTail = proc.Tail()
		}
		return row
	}
	if err := waitReady(ctx, o.Client, url, o.ReadyTimeout, exited); err != nil {
		if ctx.Err() != nil {
			row.Status = StatusInterrupted
			return row, port, false
		}
		select {
		case <-exited: // did it exit for want of its port?
			lost = portTaken(port)
		default:
		}
		return failed("", err), port, lost
	}
	row.Facts = readFacts(ctx, o.Client, url, c, o.TokensPerRequest)
	// A server that exits mid-sweep ends its measurement at once: its
	// remaining points would only count refused connections.
	mctx, cancel := context.WithCancel(ctx)
	defer cancel()
	if exited != nil {
		go func() {
			select {
			case <-exited:
				cancel()
			case <-mctx.Done():
			}
		}()
	}
	sw, err := o.Measure(mctx, c, url)
	select {
	case <-exited:
		return failed("", errors.New("the server exited during its sweep")), port, false
	default:
	}
	if ctx.Err() != nil {
		row.Status = StatusInterrupted
		return row, port, false
	}
	if sw != nil {
		row.fill(sw, o.Plan)
	}
	if err != nil && (sw == nil || sw.Interrupted) {
		row.Status, row.Error = StatusFailed, err.Error()
	}
	return row, port, false
}

// freePort asks the kernel for a port free now; the server binds it a
// moment later (a port taken in between: runOne tries another).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// portTaken reports whether another process listens on port, our server
// having exited: the race freePort cannot close.
func portTaken(port int) bool {
	l, err := net.Listen("tcp", net.JoinHostPort("127.0.0.1", strconv.Itoa(port)))
	if err != nil {
		return errors.Is(err, syscall.EADDRINUSE)
	}
	_ = l.Close()
	return false
}
