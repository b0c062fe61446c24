package main

import (
	"bufio"
	"compress/gzip"
	"io"
	"net"
	"net/http"
	"strings"
	"time"
)

// The handlers of the hostile kinds. Each drains the request body first,
// so that net/http notices when the prober hangs up and the handler ends.

const tinyEvent = `data: {"choices":[{"delta":{"content":"x"}}]}` + "\n\n"

var (
	burst = strings.Repeat(tinyEvent, 1000)
	// 38,000 choices of 27 bytes: just under the 1 MiB event cap, so only
	// the parse's cost and the timeout can stop it.
	bigEvent = "data: {\"choices\":[" +
		strings.TrimSuffix(strings.Repeat(`{"delta":{"content":"x"}},`, 38000), ",") + "]}\n\n"
	xs = strings.Repeat("x", 64<<10)
)

func startStream(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	w.Header().Set("Content-Type", "text/event-stream")
}

// repeat writes s until the client goes away.
func repeat(w io.Writer, r *http.Request, s string) {
	for r.Context().Err() == nil {
		if _, err := io.WriteString(w, s); err != nil {
			return
		}
	}
}

func tokensForever(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	repeat(w, r, burst)
}

// gzipMember is 100 bursts (4.7 MB of events) as one gzip member of
// about 14 KB; a gzip body may be a series of members (RFC 1952), so the
// bomb repeats it without compressing anything per request.
var gzipMember = func() string {
	var b strings.Builder
	zw, _ := gzip.NewWriterLevel(&b, gzip.BestCompression)
	for range 100 {
		_, _ = io.WriteString(zw, burst)
	}
	_ = zw.Close()
	return b.String()
}()

func gzipBomb(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	w.Header().Set("Content-Encoding", "gzip")
	repeat(w, r, gzipMember)
}

func endlessLine(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	_, _ = io.WriteString(w, "data: ")
	repeat(w, r, xs)
}

func manyChoices(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	repeat(w, r, bigEvent)
}

func htmlPage(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	_, _ = io.WriteString(w, "<html>\n<head><title>502 Bad Gateway</title></head>\n<body><center>nginx</center></body>\n</html>\n")
}

func noHeaders(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	<-r.Context().Done()
}

// every writes s and flushes it every d until the client goes away.
func every(w http.ResponseWriter, r *http.Request, d time.Duration, next func() string) {
	f := http.NewResponseController(w)
	t := time.NewTicker(d)
	defer t.Stop()
	for {
		if _, err := io.WriteString(w, next()); err != nil || f.Flush() != nil {
			return
		}
		select {
		case <-r.Context().Done():
			return
		case <-t.C:
		}
	}
}

func keepAlive(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	every(w, r, 5*time.Millisecond, func() string { return ": keep-alive\n\n" })
}

func drip(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	i := 0
	every(w, r, 5*time.Millisecond, func() string {
		b := tinyEvent[i%len(tinyEvent) : i%len(tinyEvent)+1]
		i++
		return b
	})
}

// resetMidStream answers by hand on the hijacked connection, so that it
// can end it with a reset instead of a FIN.
func resetMidStream(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	writeReset(conn, buf)
}

func writeReset(conn net.Conn, buf *bufio.ReadWriter) {
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n\r\n" + strings.Repeat(tinyEvent, 3))
	_ = buf.Flush()
	time.Sleep(50 * time.Millisecond)
	if tc, ok := conn.(*net.TCPConn); ok {
		_ = tc.SetLinger(0) // Close sends RST
	}
}

// badUsage sends a complete stream whose usage would drive the token
// counters negative (issue 22).
func badUsage(w http.ResponseWriter, r *http.Request) {
	startStream(w, r)
	_, _ = io.WriteString(w, tinyEvent+`data: {"choices":[{"delta":{},"finish_reason":"stop"}],"usage":{"prompt_tokens":-15,"completion_tokens":1}}`+"\n\ndata: [DONE]\n\n")
}

// notHTTP answers as another protocol on the port would.
func notHTTP(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = buf.WriteString("SSH-2.0-OpenSSH_9.6\r\n")
	_ = buf.Flush()
}

// hugeHeaders sends 10 MB of one header before a valid stream, what
// net/http reads by default.
func hugeHeaders(w http.ResponseWriter, r *http.Request) {
	_, _ = io.Copy(io.Discard, r.Body)
	conn, buf, err := http.NewResponseController(w).Hijack()
	if err != nil {
		return
	}
	defer conn.Close()
	_, _ = buf.WriteString("HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nX-Pad: ")
	pad := strings.Repeat("a", 64<<10)
	for range 160 {
		if _, err := buf.WriteString(pad); err != nil {
			return
		}
	}
	_, _ = buf.WriteString("\r\n\r\n" + tinyEvent + "data: [DONE]\n\n")
	_ = buf.Flush()
}
