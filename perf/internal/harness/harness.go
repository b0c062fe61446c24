// Package harness holds what the performance harnesses under perf/cmd
// share: loopback addresses, machine and process readings, and the way
// they summarise latencies and histograms.
package harness

import (
	"bufio"
	"encoding/json"
	"fmt"
	"math"
	"net"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"

	dto "github.com/prometheus/client_model/go"

	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
	"github.com/llm-prober/llm-prober/mockvllm"
)

// FreeAddr returns a 127.0.0.1 address whose port was free a moment ago.
func FreeAddr() string {
	addr, err := e2ekit.FreeAddr()
	if err != nil {
		panic(err)
	}
	return addr
}

// ServeMock is the child's side of StartMock: it serves mock on addr, with
// GET /trace?id= answering trace(the request's emissions) as JSON, and
// prints "ready" once it listens. It returns when serving fails.
func ServeMock(addr string, mock *mockvllm.Server, trace func(mockvllm.Trace) any) {
	mux := http.NewServeMux()
	mux.Handle("/", mock)
	mux.HandleFunc("GET /trace", func(w http.ResponseWriter, r *http.Request) {
		tr, ok := mock.Emissions(r.URL.Query().Get("id"))
		if !ok {
			http.NotFound(w, r)
			return
		}
		_ = json.NewEncoder(w).Encode(trace(tr))
	})
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println("ready")
	_ = http.Serve(ln, mux)
}

// StartMock runs this program again as "-serve-mock ADDR args..." on a
// free address, for a mock in a process of its own, and waits for its
// "ready". It returns the mock's URL and the started command: kill it
// and wait for it when done.
func StartMock(args ...string) (string, *exec.Cmd, error) {
	addr := FreeAddr()
	cmd := exec.Command(os.Args[0], append([]string{"-serve-mock", addr}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		return "", nil, err
	}
	if err := cmd.Start(); err != nil {
		return "", nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if line != "ready\n" {
		_ = cmd.Process.Kill()
		werr := cmd.Wait()
		return "", nil, fmt.Errorf("mock on %s did not start: read %q (%v), exit: %v", addr, line, err, werr)
	}
	return "http://" + addr, cmd, nil
}

// StartProber runs the llm-prober binary with config file cfg (and
// args) on a free address, logging warnings to this program's stderr, and
// waits up to a minute for it to be ready. It returns the process and
// the base URL of its web server.
func StartProber(binary, cfg string, args ...string) (*e2ekit.Proc, string, error) {
	addr := FreeAddr()
	p, err := e2ekit.Start("llm-prober", os.Stderr, binary,
		append([]string{"--config.file=" + cfg, "--web.listen-address=" + addr, "--log.level=warn"}, args...)...)
	if err != nil {
		return nil, "", err
	}
	base := "http://" + addr
	if err := e2ekit.WaitHTTP(p, base+"/-/ready", time.Minute); err != nil {
		p.Kill()
		return nil, "", err
	}
	return p, base, nil
}

// LoadAvg is the 1, 5 and 15 minute load averages, for noting how busy
// the machine was.
func LoadAvg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Join(strings.Fields(string(b))[:3], " ")
}

// CPUTime is the user and system CPU this process has used.
func CPUTime() time.Duration {
	var ru syscall.Rusage
	_ = syscall.Getrusage(syscall.RUSAGE_SELF, &ru)
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// PeakRSS is this process's VmHWM, in bytes.
func PeakRSS() int64 { return procStatus("self", "VmHWM:") }

// RSS is process pid's VmRSS, in bytes.
func RSS(pid int) int64 { return procStatus(strconv.Itoa(pid), "VmRSS:") }

func procStatus(pid, field string) int64 {
	b, _ := os.ReadFile("/proc/" + pid + "/status")
	for _, l := range strings.Split(string(b), "\n") {
		if f := strings.Fields(l); len(f) >= 2 && f[0] == field {
			kb, _ := strconv.ParseInt(f[1], 10, 64)
			return kb << 10
		}
	}
	return 0
}

// Summary gives p50/p99/max of d in milliseconds, of |d| when abs.
func Summary(d []time.Duration, abs bool) string {
	if len(d) == 0 {
		return "-"
	}
	a := slices.Clone(d)
	if abs {
		for i := range a {
			a[i] = a[i].Abs()
		}
	}
	slices.Sort(a)
	q := func(p float64) time.Duration { return a[min(int(p*float64(len(a))), len(a)-1)] }
	f := func(x time.Duration) string { return strconv.FormatFloat(float64(x)/1e6, 'f', 3, 64) }
	return f(q(0.5)) + "/" + f(q(0.99)) + "/" + f(a[len(a)-1]) + " ms"
}

// Quantile interpolates linearly inside the classic bucket holding q.
func Quantile(h *dto.Histogram, q float64) float64 {
	total := float64(h.GetSampleCount())
	if total == 0 {
		return math.NaN()
	}
	rank, lo, prev := q*total, 0.0, 0.0
	for _, b := range h.GetBucket() {
		c := float64(b.GetCumulativeCount())
		if c >= rank {
			if c == prev {
				return b.GetUpperBound()
			}
			return lo + (b.GetUpperBound()-lo)*(rank-prev)/(c-prev)
		}
		lo, prev = b.GetUpperBound(), c
	}
	return math.Inf(1)
}

// MS formats seconds as milliseconds.
func MS(s float64) string { return strconv.FormatFloat(s*1000, 'g', 3, 64) + "ms" }

// Fraction is the share of h's observations at or below bound, when bound
// is one of its bucket bounds.
func Fraction(h *dto.Histogram, bound float64) string {
	for _, b := range h.GetBucket() {
		if b.GetUpperBound() == bound && h.GetSampleCount() > 0 {
			return strconv.FormatFloat(100*float64(b.GetCumulativeCount())/float64(h.GetSampleCount()), 'f', 2, 64) + "%"
		}
	}
	return "-"
}

// ProcCPU is the user and system CPU process pid has used, from
// /proc/PID/stat (clock ticks of 10 ms).
func ProcCPU(pid int) time.Duration {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0
	}
	s := string(b)
	f := strings.Fields(s[strings.LastIndexByte(s, ')')+2:])
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}
