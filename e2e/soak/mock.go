package main

import (
	"net"
	"net/http"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// startMock serves a fault-injecting mock vLLM on loopback. Every fault
// class gets an equal share of rate.
func startMock(rate float64) (url string, stop func(), err error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	o := mockvllm.DefaultOptions()
	o.TTFT = mockvllm.Dist{Mean: 50e6, Jitter: 20e6} // 50±20ms
	o.ITL = mockvllm.Dist{Mean: 10e6, Jitter: 3e6}   // 10±3ms
	o.BatchSlowdown = 0
	o.MaxRunning = 0 // no queueing: the prober, not the mock, is under test
	o.KVBlocks = 0
	o.TraceCapacity = 1000
	o.Faults = mockvllm.FaultRates{}
	for _, f := range mockvllm.Faults() {
		o.Faults[f] = rate / float64(len(mockvllm.Faults()))
	}
	mock := mockvllm.New(o)
	srv := &http.Server{Handler: mock}
	go func() { _ = srv.Serve(l) }()
	return "http://" + l.Addr().String(), func() { mock.Close(); srv.Close() }, nil
}

// closedPort returns a loopback address nothing listens on.
func closedPort() (string, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	addr := l.Addr().String()
	l.Close()
	return addr, nil
}
