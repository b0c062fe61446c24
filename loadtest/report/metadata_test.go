package report

import (
	"bytes"
	"net/http"
	"net/http/httptest"
	"runtime"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/config"
	"github.com/llm-prober/llm-prober/loadtest/serverwatch"
)

// Nothing answers: an empty ServerInfo, and the text says so.
func TestServerMetadataNothingExposed(t *testing.T) {
	ts := httptest.NewServer(http.NotFoundHandler())
	defer ts.Close()
	m := &serverwatch.Metadata{Server: serverwatch.ServerMetadata(t.Context(), ts.Client(), &config.Target{Name: "x", URL: ts.URL}), Client: serverwatch.ClientMetadata("v9.9.9")}
	if m.Server.Version != "" || m.Server.Engine != nil || m.Server.Sources != nil {
		t.Errorf("%+v", m.Server)
	}
	if m.Client.CPUs != runtime.NumCPU() || m.Client.OS != runtime.GOOS || m.Client.Version != "v9.9.9" {
		t.Errorf("client %+v", m.Client)
	}
	if runtime.GOOS == "linux" && len(m.Client.LoadAvg) != 3 {
		t.Errorf("load average %v", m.Client.LoadAvg)
	}
	var b bytes.Buffer
	WriteMetadata(m, &b)
	if !strings.Contains(b.String(), "not exposed") || !strings.Contains(b.String(), "v9.9.9") {
		t.Errorf("text:\n%s", b.String())
	}
}
