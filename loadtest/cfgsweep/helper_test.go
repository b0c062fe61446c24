package cfgsweep

import (
	"fmt"
	"net/http"
	"os"
	"runtime"
	"syscall"
	"testing"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// TestMain lets the test binary be a server command: with
// CFGSWEEP_HELPER=serve it serves the mock on the address in $ADDR (with
// GET /die killing it, as an OOM kill would), with =exit it writes a line
// and exits 3, with =bench it starts a server writing its pid to $PIDFILE
// and waits.
func TestMain(m *testing.M) {
	switch os.Getenv("CFGSWEEP_HELPER") {
	case "serve":
		o := mockvllm.DefaultOptions()
		o.KVBlocks = 777
		mock := mockvllm.New(o)
		mux := http.NewServeMux()
		mux.Handle("/", mock)
		mux.HandleFunc("/die", func(http.ResponseWriter, *http.Request) {
			fmt.Println("CUDA out of memory (simulated)")
			syscall.Kill(os.Getpid(), syscall.SIGKILL)
		})
		fmt.Println("serving on", os.Getenv("ADDR"))
		err := http.ListenAndServe(os.Getenv("ADDR"), mux)
		fmt.Println(err)
		os.Exit(1)
	case "bench": // starts a server as bench does, then waits to be killed
		if _, err := StartProcess([]string{"/bin/sh", "-c", `echo $$ > "$PIDFILE.tmp" && mv "$PIDFILE.tmp" "$PIDFILE" && exec sleep 600`}); err != nil {
			fmt.Println(err)
			os.Exit(1)
		}
		runtime.GC() // the starting goroutine's thread must outlive this, whatever the runtime does
		select {}
	case "exit":
		fmt.Println("error: bad flag \x1b[31m--max-num-seqs\x1b[0m")
		os.Exit(3)
	}
	os.Exit(m.Run())
}

// helper is a server command that runs this test binary as {mode}.
func helper(t *testing.T) *Template {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	tp, err := ParseTemplate("--server-cmd", "/usr/bin/env CFGSWEEP_HELPER={mode} ADDR=127.0.0.1:{port} "+exe+" --seqs={seqs}", false)
	if err != nil {
		t.Fatal(err)
	}
	return tp
}
