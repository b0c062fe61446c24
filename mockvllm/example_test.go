package mockvllm_test

import (
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// Serving the mock on loopback, as `llm-prober --demo` does.
func Example() {
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 200 * time.Millisecond, Jitter: 50 * time.Millisecond}
	o.Faults = mockvllm.FaultRates{mockvllm.FaultRateLimit: 0.01, mockvllm.FaultStreamError: 0.005}
	s := mockvllm.New(o)
	defer s.Close() // before srv.Close: ends in-flight streams

	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		panic(err)
	}
	srv := &http.Server{Handler: s, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = srv.Serve(l) }()
	defer srv.Close()
	fmt.Println("mock vLLM at http://" + l.Addr().String() + "/v1")

	// After a request with X-Request-Id: probe-1 completes:
	if tr, ok := s.Emissions("probe-1"); ok {
		fmt.Println(tr.FirstToken.Sub(tr.Arrival))
	}
}
