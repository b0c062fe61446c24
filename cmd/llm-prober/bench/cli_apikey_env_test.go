package bench

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/llm-prober/llm-prober/mockvllm"
)

// OPENAI_API_KEY, without --api-key-file, is the requests' bearer token;
// a value holding a control character is refused (no request carries a
// split header) and never shown.
func TestBenchCLIOpenAIAPIKeyFromEnvironment(t *testing.T) {
	var mu sync.Mutex
	auth := map[string]bool{}
	s := mockvllm.New(mockvllm.Options{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		auth[r.Header.Get("Authorization")] = true
		mu.Unlock()
		s.ServeHTTP(w, r)
	}))
	defer func() { s.Close(); srv.Close() }()
	t.Setenv("OPENAI_API_KEY", "sk-env-36")
	code, stdout, log := benchCLI(t, "--url", srv.URL, "--num-prompts", "2", "--input-tokens", "8", "--output-tokens", "2", "--progress", "off")
	mu.Lock()
	got := auth["Bearer sk-env-36"] && len(auth) == 1
	mu.Unlock()
	if code != 0 || !got || strings.Contains(stdout+log, "sk-env-36") {
		t.Fatalf("exit %d, authorization headers %v\n%s%s", code, auth, stdout, log)
	}

	t.Setenv("OPENAI_API_KEY", "sk-env-37\r\nX-Evil: 1")
	mu.Lock()
	clear(auth)
	mu.Unlock()
	code, stdout, log = benchCLI(t, "--url", srv.URL, "--num-prompts", "2", "--input-tokens", "8", "--output-tokens", "2", "--progress", "off")
	mu.Lock()
	defer mu.Unlock()
	if code == 0 || len(auth) != 0 || strings.Contains(stdout+log, "sk-env-37") {
		t.Errorf("a key with CR LF: exit %d, authorization headers %v\n%s%s", code, auth, stdout, log)
	}
}
