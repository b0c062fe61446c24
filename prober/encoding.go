package prober

import (
	"compress/gzip"
	"fmt"
	"io"
	"net/http"
	"strings"
)

// decodeBody undoes a gzip Content-Encoding. The prober does not ask for
// compression (buffering in the compressor would distort TTFT), and the
// HTTP client config disables the transport's transparent decoding, but
// some proxies compress anyway; such a stream must still be measured.
func decodeBody(resp *http.Response) error {
	enc := strings.ToLower(strings.TrimSpace(resp.Header.Get("Content-Encoding")))
	if resp.Uncompressed || enc == "" || enc == "identity" {
		return nil
	}
	// An error response is classified by its status; its body is only
	// for the message, so a body we cannot decode is no failure of its own.
	isErr := resp.StatusCode < 200 || resp.StatusCode > 299
	if isErr && enc != "gzip" && enc != "x-gzip" {
		return nil
	}
	if enc != "gzip" && enc != "x-gzip" {
		return fail(ReasonMalformedChunk, fmt.Errorf("unsupported Content-Encoding %q", enc))
	}
	zr, err := gzip.NewReader(resp.Body)
	if err != nil && isErr {
		return nil
	}
	if err != nil {
		// A cut before the gzip header is a broken stream, not bad data.
		if err == io.EOF || err == io.ErrUnexpectedEOF {
			return fail(ReasonStreamBroken, fmt.Errorf("gzip stream ended before its header: %w", err))
		}
		return fail(ReasonMalformedChunk, fmt.Errorf("invalid gzip stream: %w", err))
	}
	resp.Body = gzipBody{zr, resp.Body}
	resp.Header.Del("Content-Encoding")
	return nil
}

type gzipBody struct {
	*gzip.Reader
	raw io.Closer
}

func (b gzipBody) Close() error { return b.raw.Close() }
