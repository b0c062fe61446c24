package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// inputRun is one `plan` or `bench` invocation on a hostile input (issue
// 32): a Prometheus answer or a file a flag names. It must exit with
// want, one error line naming what, within wall, and stay within the RSS
// bound above the same command's run on a harmless input.
type inputRun struct {
	what  string
	args  []string
	want  int    // exit code
	line  string // in the error line
	exit  int
	took  time.Duration
	rss   float64 // max RSS, bytes
	stder string
	// slow: a time bound of its own for an input read whole to its cap
	// (0: --prometheus.timeout plus the reload bound); its RSS bound is the
	// goal's like every other.
	slow time.Duration
}

// promTimeout is the plan's and bench's --prometheus.timeout here: the
// one deadline over connect, read and decode.
const promTimeout = 3 * time.Second

// hostileInputs runs plan and bench on hostile Prometheus answers (served
// here, on loopback) and hostile files, after the prober's run. It
// returns what it saw and what broke.
func hostileInputs(o options, dir string) ([]inputRun, []string, error) {
	prom, err := startHostileProm()
	if err != nil {
		return nil, nil, err
	}
	defer prom.Close()
	mock, stopMock, err := startMock(0)
	if err != nil {
		return nil, nil, err
	}
	defer stopMock()
	files, err := hostileFiles(dir)
	if err != nil {
		return nil, nil, err
	}
	planOn := func(kind string) []string {
		return []string{"plan", "--prometheus.url", prom.URL + "/" + kind, "--prometheus.timeout", promTimeout.String(), "--knee-rate", "35"}
	}
	benchOn := func(kind string) []string {
		return []string{"bench", "--workload-from-prometheus", "--prometheus.url", prom.URL + "/" + kind, "--prometheus.timeout",
			promTimeout.String(), "--url", mock, "--num-prompts", "2", "--progress", "off"}
	}
	benchFile := func(flags ...string) []string {
		return append([]string{"bench", "--url", mock, "--num-prompts", "2", "--progress", "off", "--no-server-metrics"}, flags...)
	}
	runs := []inputRun{}
	for _, kind := range promKinds {
		runs = append(runs,
			inputRun{what: "plan, Prometheus " + kind.name, args: planOn(kind.name), want: 1, line: kind.line},
			inputRun{what: "bench --workload-from-prometheus, Prometheus " + kind.name, args: benchOn(kind.name), want: 1, line: kind.line})
	}
	runs = append(runs,
		inputRun{what: "trace: far-future timestamp", args: benchFile("--dataset-name", "trace", "--dataset-path", files["future"]), want: 2, line: files["future"] + ":2"},
		inputRun{what: "trace: one 100 MB line", args: benchFile("--dataset-name", "trace", "--dataset-path", files["longline"]), want: 2, line: "a line longer than"},
		// The trace's request cap holds 4,000,000 requests, 14 bytes each,
		// before it refuses the next: +57 MiB in 4.7-13.8 s at load 13-22
		// (+332 to +759 MiB in 21-26 s before issue 32's fix).
		inputRun{what: "trace: 4,000,001 requests (96 MB)", args: benchFile("--dataset-name", "trace", "--dataset-path", files["many"]), want: 2,
			line: "more than 4000000 requests", slow: 30 * time.Second},
		// The prompt is refused at the 16 MiB element cap: +35 MiB (+98 before).
		inputRun{what: "ShareGPT: a 100 MB prompt", args: benchFile("--dataset-name", "sharegpt", "--dataset-path", files["sharegpt"]), want: 2,
			line: files["sharegpt"]},
		inputRun{what: "workload file: 100 MB", args: benchFile("--workload-file", files["workload"]), want: 2, line: files["workload"]},
		inputRun{what: "workload file: a FIFO", args: benchFile("--workload-file", files["fifo"]), want: 2, line: "not a regular file"},
	)
	// The same commands on a harmless input: the RSS baseline.
	base := map[string]float64{}
	for _, cmd := range []string{"plan", "bench"} {
		b := inputRun{what: cmd + " baseline", args: []string{cmd, "--help"}}
		b.run(o.prober)
		base[cmd] = b.rss
	}
	var problems []string
	for i := range runs {
		r := &runs[i]
		r.run(o.prober)
		last := lastLine(r.stder)
		over := (r.rss - base[r.args[0]]) / (1 << 20)
		bound, slow := o.hostile.rssMiB, promTimeout+o.hostile.reload
		if r.slow > 0 {
			slow = r.slow
		}
		fmt.Printf("  input      %-58s exit %d in %s, RSS %.1f MiB (+%.1f): %s\n", r.what, r.exit, ms(r.took), r.rss/(1<<20), over, truncateLine(last, 160))
		switch {
		case r.exit != r.want:
			problems = append(problems, fmt.Sprintf("%s: exit %d, want %d: %s", r.what, r.exit, r.want, last))
		case !strings.Contains(last, r.line):
			problems = append(problems, fmt.Sprintf("%s: the last line %q lacks %q", r.what, last, r.line))
		case over > bound:
			problems = append(problems, fmt.Sprintf("%s: RSS +%.1f MiB above `%s --help` (bound +%.0f MiB)", r.what, over, r.args[0], bound))
		case r.took > slow:
			problems = append(problems, fmt.Sprintf("%s: %s (bound %s)", r.what, r.took, slow))
		}
	}
	return runs, problems, nil
}

// inputsOnly is --inputs: the hostile inputs alone.
func inputsOnly(o options) error {
	dir, cleanup, err := workDir(o)
	if err != nil {
		return err
	}
	defer cleanup()
	printLoad("start of the inputs")
	_, problems, err := hostileInputs(o, dir)
	printLoad("end of the inputs")
	if err != nil {
		return err
	}
	if len(problems) > 0 {
		return errors.New(strings.Join(problems, "\n"))
	}
	return nil
}

// inputsChild runs --inputs in a child process: a command's peak RSS
// (its rusage) starts from its parent's at the fork, and the harness has
// grown by the end of a soak, a fresh child has not.
func inputsChild(o options, dir string) error {
	cmd := exec.Command(os.Args[0], "--inputs", "--prober="+o.prober, "--work-dir="+dir,
		fmt.Sprintf("--hostile.rss-mib=%g", o.hostile.rssMiB), "--hostile.reload="+o.hostile.reload.String())
	cmd.Stdout, cmd.Stderr = os.Stdout, os.Stdout
	return cmd.Run()
}

// run runs the command with a minute's limit (a hang is a failure).
func (r *inputRun) run(prober string) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, prober, r.args...)
	var stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = io.Discard, &stderr
	start := time.Now()
	err := cmd.Run()
	r.took = time.Since(start)
	r.stder = stderr.String()
	var ee *exec.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		r.exit = ee.ExitCode()
	default:
		r.exit = -1
	}
	if ctx.Err() != nil {
		r.exit = -1
		r.stder += "\nkilled after a minute"
	}
	if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
		r.rss = float64(ru.Maxrss) * 1024
	}
}

func lastLine(s string) string {
	s = strings.TrimSpace(s)
	return s[strings.LastIndex(s, "\n")+1:]
}

// promKinds are the hostile Prometheus answers and what the error says.
var promKinds = []struct{ name, line string }{
	{"endless", "answer over the size cap"},
	{"huge_label", "answer over the size cap"},
	{"nan", "answered NaN"},
	{"1e308", "answered 1e+308"},
	{"trickle", "within " + promTimeout.String()},
}

// startHostileProm serves the answers of promKinds, one path each.
func startHostileProm() (*httptest, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	series := `{"metric":{"target":"a","job":"j"},"values":[[%d,"1"],[%d,"2.5"]]},`
	mux := http.NewServeMux()
	endless := func(head, unit string) http.HandlerFunc {
		return func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			_, _ = io.WriteString(w, head)
			chunk := strings.Repeat(unit, max(1, (64<<10)/len(unit)))
			for r.Context().Err() == nil {
				if _, err := io.WriteString(w, chunk); err != nil {
					return
				}
			}
		}
	}
	now := time.Now().Unix()
	matrix := `{"status":"success","data":{"resultType":"matrix","result":[`
	mux.Handle("/endless/", endless(matrix, fmt.Sprintf(series, now-60, now)))
	mux.Handle("/huge_label/", endless(matrix+`{"metric":{"target":"`, "x"))
	for _, v := range []string{"NaN", "1e308"} {
		const body = `{"status":"success","data":{"resultType":"%s","result":[{"metric":{"target":"a"},%s}]}}`
		mux.HandleFunc("/"+strings.ToLower(v)+"/", func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/json")
			if strings.HasSuffix(r.URL.Path, "query_range") {
				fmt.Fprintf(w, body, "matrix", fmt.Sprintf(`"values":[[%d,%q],[%d,%q]]`, now-60, v, now, v))
				return
			}
			fmt.Fprintf(w, body, "vector", fmt.Sprintf(`"value":[%d,%q]`, now, v))
		})
	}
	mux.HandleFunc("/trickle/", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		_, _ = io.WriteString(w, matrix)
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, " "); err != nil {
				return
			}
			w.(http.Flusher).Flush()
			time.Sleep(5 * time.Millisecond)
		}
	})
	srv := &http.Server{Handler: mux}
	go func() { _ = srv.Serve(l) }()
	return &httptest{URL: "http://" + l.Addr().String(), srv: srv}, nil
}

// httptest is a loopback server the harness stops.
type httptest struct {
	URL string
	srv *http.Server
}

func (h *httptest) Close() { _ = h.srv.Close() }

const manyLine = `{"timestamp":0,"input_length":1,"output_length":1}` + "\n"

// hostileFiles writes bench's hostile input files in dir.
func hostileFiles(dir string) (map[string]string, error) {
	p := func(name string) string { return filepath.Join(dir, name) }
	files := map[string]string{"future": p("future.jsonl"), "longline": p("longline.jsonl"), "many": p("many.jsonl"),
		"sharegpt": p("sharegpt.json"), "workload": p("workload.json"), "fifo": p("workload.fifo")}
	entry := `{"timestamp": 0, "input_length": 10, "output_length": 5}` + "\n"
	steps := []error{
		os.WriteFile(files["future"], []byte(entry+`{"timestamp": 1e300, "input_length": 10, "output_length": 5}`+"\n"), 0o600),
		writeRepeated(files["longline"], `{"timestamp": 0, "input_length": 10, "output_length": 5, "hash_ids": [`, "1,", 100<<20),
		writeRepeated(files["many"], "", manyLine, 4_000_100*len(manyLine)),
		writeRepeated(files["sharegpt"], `[{"conversations": [{"from": "human", "value": "`, "x", 100<<20),
		writeRepeated(files["workload"], `{"version": 1, "x": "`, "x", 100<<20),
		syscall.Mkfifo(files["fifo"], 0o600),
	}
	return files, errors.Join(steps...)
}
