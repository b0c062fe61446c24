package main

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/llm-prober/llm-prober/internal/testutil/e2ekit"
)

// startProc starts a child process of the drill, its output going to
// dir/name.log; it is stopped by its PID only.
func startProc(dir, name, bin string, args ...string) (*e2ekit.Proc, error) {
	logf, err := os.Create(filepath.Join(dir, name+".log"))
	if err != nil {
		return nil, err
	}
	p, err := e2ekit.Start(name, logf, bin, args...)
	if err != nil {
		logf.Close()
		return nil, err
	}
	go func() { <-p.Done(); logf.Close() }()
	return p, nil
}

// waitHTTP waits for u, served by p, to answer 200 OK.
func waitHTTP(p *e2ekit.Proc, u string, timeout time.Duration) error {
	if err := e2ekit.WaitHTTP(p, u, timeout); err != nil {
		return fmt.Errorf("%w (see its log)", err)
	}
	return nil
}

// load streams chat completions from n clients until ctx is done: the
// steady traffic that saturates a small server. A client that gets a 429
// backs off.
func load(ctx context.Context, base string, n int) *sync.WaitGroup {
	body := e2ekit.LoadBody(20, 150)
	client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: n}}
	var wg sync.WaitGroup
	for range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			e2ekit.Stream(ctx, client, base, body, 200*time.Millisecond, func(status int) {
				if status == http.StatusTooManyRequests {
					time.Sleep(200 * time.Millisecond)
				}
			})
		}()
	}
	return &wg
}
