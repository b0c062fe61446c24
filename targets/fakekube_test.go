package targets

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"sync"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
)

// fakeKube is a loopback server speaking just enough of the Kubernetes
// API — list and watch of namespaced collections, JSON — for client-go's
// informers, which Prometheus's kubernetes SD runs. client-go's fake
// clientset cannot be used: Prometheus builds its own client from
// api_server.
type fakeKube struct {
	mu       sync.Mutex
	rv       int
	objects  map[string]map[string]runtime.Object // path -> name -> object
	watchers map[string][]chan []byte
}

func newFakeKube(t *testing.T) (*fakeKube, *httptest.Server) {
	k := &fakeKube{objects: map[string]map[string]runtime.Object{}, watchers: map[string][]chan []byte{}}
	srv := httptest.NewServer(http.HandlerFunc(k.serve))
	t.Cleanup(func() {
		k.mu.Lock()
		for _, ws := range k.watchers {
			for _, w := range ws {
				close(w)
			}
		}
		k.watchers = map[string][]chan []byte{}
		k.mu.Unlock()
		srv.Close()
	})
	return k, srv
}

// put adds or replaces obj (with its kind set) in the collection at path
// and tells the watchers.
func (k *fakeKube) put(path, name string, obj runtime.Object, event string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.rv++
	setRV(obj, k.rv)
	if k.objects[path] == nil {
		k.objects[path] = map[string]runtime.Object{}
	}
	if event == "DELETED" {
		delete(k.objects[path], name)
	} else {
		k.objects[path][name] = obj
	}
	b, _ := json.Marshal(map[string]any{"type": event, "object": obj})
	for _, w := range k.watchers[path] {
		w <- append(b, '\n')
	}
}

func setRV(obj runtime.Object, rv int) {
	if m, ok := obj.(interface{ SetResourceVersion(string) }); ok {
		m.SetResourceVersion(strconv.Itoa(rv))
	}
}

func (k *fakeKube) serve(w http.ResponseWriter, r *http.Request) {
	path := r.URL.Path
	if r.URL.Query().Get("watch") == "true" || r.URL.Query().Get("watch") == "1" {
		k.watch(w, r, path)
		return
	}
	k.mu.Lock()
	items := []runtime.Object{}
	for _, o := range k.objects[path] {
		if selected(o, r.URL.Query().Get("labelSelector")) {
			items = append(items, o)
		}
	}
	rv := k.rv
	k.mu.Unlock()
	kind := map[string]string{"pods": "PodList", "services": "ServiceList", "endpointslices": "EndpointSliceList"}[path[strings.LastIndex(path, "/")+1:]]
	if kind == "" {
		http.NotFound(w, r)
		return
	}
	apiVersion := "v1"
	if strings.HasPrefix(path, "/apis/") {
		apiVersion = strings.Join(strings.Split(path, "/")[2:4], "/")
	}
	w.Header().Set("Content-Type", "application/json")
	_ = json.NewEncoder(w).Encode(map[string]any{"kind": kind, "apiVersion": apiVersion,
		"metadata": map[string]any{"resourceVersion": strconv.Itoa(rv)}, "items": items})
}

func (k *fakeKube) watch(w http.ResponseWriter, r *http.Request, path string) {
	ch := make(chan []byte, 100)
	k.mu.Lock()
	k.watchers[path] = append(k.watchers[path], ch)
	k.mu.Unlock()
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case b, ok := <-ch:
			if !ok {
				return
			}
			_, _ = w.Write(b)
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

// selected applies an equality label selector (a=b,c=d).
func selected(o runtime.Object, sel string) bool {
	m, ok := o.(interface{ GetLabels() map[string]string })
	if !ok || sel == "" {
		return true
	}
	for _, req := range strings.Split(sel, ",") {
		k, v, _ := strings.Cut(req, "=")
		if m.GetLabels()[k] != v {
			return false
		}
	}
	return true
}
