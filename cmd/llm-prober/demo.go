package main

import (
	_ "embed"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/go-kit/log"
	"github.com/go-kit/log/level"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// demoListenAddress is where --demo serves without --web.listen-address:
// the default port, on loopback only.
const demoListenAddress = "127.0.0.1:9775"

//go:embed demo.yml
var demoConfig string

// startDemo serves a mock vLLM on a loopback port and writes a config
// probing it to a temporary file, which /-/reload then re-reads like any
// other config file. The returned func stops the mock and removes the file.
func startDemo(logger log.Logger) (string, func(), error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", nil, err
	}
	opts := mockvllm.DefaultOptions()
	// A little of every kind of trouble, so failure counters move too.
	opts.Faults = mockvllm.FaultRates{mockvllm.FaultRateLimit: 0.02, mockvllm.FaultStreamError: 0.01, mockvllm.FaultDisconnect: 0.01}
	// Every 20th answer freezes mid-stream: the max_itl SLO and the
	// worst-gap panel have something to show.
	opts.DecodeStall = mockvllm.DecodeStall{Every: 20, For: 600 * time.Millisecond, AfterTokens: 8}
	mock := mockvllm.New(opts)
	srv := &http.Server{Handler: mock}
	go func() { _ = srv.Serve(l) }()

	dir, err := os.MkdirTemp("", "llm-prober-demo")
	if err != nil {
		srv.Close()
		return "", nil, err
	}
	file := filepath.Join(dir, "demo.yml")
	url := "http://" + l.Addr().String()
	if err := os.WriteFile(file, []byte(strings.ReplaceAll(demoConfig, "{{URL}}", url)), 0o600); err != nil {
		srv.Close()
		os.RemoveAll(dir)
		return "", nil, err
	}
	level.Info(logger).Log("msg", "demo mode: probing the built-in mock vLLM server", "url", url, "config", file)
	return file, func() {
		srv.Close()
		mock.Close()
		os.RemoveAll(dir)
	}, nil
}
