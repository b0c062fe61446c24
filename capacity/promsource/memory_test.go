package promsource

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"runtime"
	"runtime/metrics"
	"strings"
	"testing"
	"time"
)

// allocated is the bytes fn allocates, all told (garbage too): an upper
// bound on the heap it can add at its peak.
func allocated(fn func()) uint64 {
	s := []metrics.Sample{{Name: "/gc/heap/allocs:bytes"}}
	runtime.GC()
	metrics.Read(s)
	before := s[0].Value.Uint64()
	fn()
	metrics.Read(s)
	return s[0].Value.Uint64() - before
}

// endlessAnswer serves head, then el until the client goes, then tail.
func endlessAnswer(head, el string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		fmt.Fprint(w, head)
		chunk := strings.Repeat(el, max(1, 64<<10/len(el)))
		for r.Context().Err() == nil {
			if _, err := io.WriteString(w, chunk); err != nil { // no copy: the server's allocations count too
				return
			}
		}
	}
}

// A hostile answer costs at most the cap in allocations, plus a constant
// (the client's buffers): it used to be read whole by client_golang and
// decoded into a second copy, 2–3× the cap (306 MB RSS at 64 MiB). Each
// shape is refused by the cap it meets first.
func TestAnswerMemoryBounded(t *testing.T) {
	const limit = 8 << 20
	const slack = 2 << 20 // client and transport buffers, the error
	head := `{"status":"success","data":{"resultType":"matrix","result":[`
	pt := `[1795132800,"1"],`
	for _, c := range []struct {
		name string
		h    http.HandlerFunc
		want string
	}{
		{"series without end", endlessAnswer(head, `{"metric":{"target":"a","job":"j"},"values":[[1795132800,"1"]]},`), "answer over the size cap"},
		{"vector samples without end", endlessAnswer(`{"status":"success","data":{"resultType":"vector","result":[`,
			`{"metric":{"target":"a"},"value":[1795132800,"1"]},`), "answer over the size cap"},
		{"points without end", endlessAnswer(head+`{"metric":{},"values":[`, pt), "more than 11000 points"},
		{"points in many series", endlessAnswer(head, `{"metric":{},"values":[`+strings.Repeat(pt, 10999)+pt[:len(pt)-1]+`]},`), "answer over the size cap"},
		{"labels without end", endlessAnswer(head+`{"metric":{`, `"a":"b",`), "answer over the size cap"},
		{"a long label", endlessAnswer(head+`{"metric":{"a":"`, strings.Repeat("x", 1000)), "answer over the size cap"},
		{"a long string", endlessAnswer(`{"status":"success","warnings":["`, strings.Repeat("x", 1000)), "answer over the size cap"},
		{"brackets", endlessAnswer(head+`{"metric":{"a":`, "["), "want a string"},
	} {
		s := hostileSource(t, c.h, limit, time.Minute)
		var err error
		n := allocated(func() { _, err = s.ServedRates(context.Background()) })
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%s: %v, want one line with %q", c.name, err, c.want)
		}
		if c.want == "answer over the size cap" && !errors.Is(err, ErrTooLarge) {
			t.Errorf("%s: %v is no ErrTooLarge", c.name, err)
		}
		if n > limit+slack {
			t.Errorf("%s: %.1f MiB allocated, the cap is %d MiB", c.name, float64(n)/(1<<20), limit>>20)
		}
		t.Logf("%s: %.1f MiB allocated", c.name, float64(n)/(1<<20))
	}
}

// BenchmarkAnswerAtCap reads an endless answer to the default cap (64
// MiB): B/op is the most one answer allocates (docs/performance.md).
func BenchmarkAnswerAtCap(b *testing.B) {
	s := hostileSource(b, endlessAnswer(`{"status":"success","data":{"resultType":"matrix","result":[`,
		`{"metric":{"target":"a","job":"j"},"values":[[1795132800,"1"],[1795132860,"2.5"]]},`), DefaultMaxResponseBytes, time.Minute)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := s.ServedRates(context.Background()); !errors.Is(err, ErrTooLarge) {
			b.Fatal(err)
		}
	}
}
