package stream

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode/utf8"
)

// wireChunk is the part of an OpenAI-compatible streaming chunk we read,
// for both chat.completion.chunk and text_completion objects.
type wireChunk struct {
	Choices []struct {
		Text  *string `json:"text"`
		Delta struct {
			Content          *string         `json:"content"`
			ReasoningContent *string         `json:"reasoning_content"`
			Reasoning        *string         `json:"reasoning"`
			ToolCalls        json.RawMessage `json:"tool_calls"`
		} `json:"delta"`
		FinishReason *string `json:"finish_reason"`
	} `json:"choices"`
	Usage *Usage          `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// Usage is a chunk's usage object: the server's token counts.
type Usage struct {
	PromptTokens     int `json:"prompt_tokens"`
	CompletionTokens int `json:"completion_tokens"`
	// vLLM spells it prompt_tokens_details; an older vLLM-compatible
	// server sent prompt_tokens_detail. Accept both.
	PromptTokensDetails *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_details"`
	PromptTokensDetail *struct {
		CachedTokens int `json:"cached_tokens"`
	} `json:"prompt_tokens_detail"`
}

// CachedTokens is the prompt tokens served from the prefix cache, in
// either spelling of the details.
func (u *Usage) CachedTokens() int {
	switch {
	case u.PromptTokensDetails != nil:
		return u.PromptTokensDetails.CachedTokens
	case u.PromptTokensDetail != nil:
		return u.PromptTokensDetail.CachedTokens
	}
	return 0
}

// Check refuses token counts that no server serves (negative, or past
// MaxUsageTokens), which would drive the token counters down or out of
// range for the life of the process; nil usage is fine.
func (u *Usage) Check() error {
	if u == nil {
		return nil
	}
	for _, c := range []struct {
		name string
		n    int
	}{{"prompt_tokens", u.PromptTokens}, {"completion_tokens", u.CompletionTokens}, {"cached_tokens", u.CachedTokens()}} {
		if c.n < 0 || c.n > MaxUsageTokens {
			return failed(InvalidUsage, fmt.Errorf("usage %s is %d, outside [0, %d]", c.name, c.n, MaxUsageTokens))
		}
	}
	// Hits are part of the prompt: more of them than prompt tokens would
	// count a prefix-cache hit rate over 100 %.
	if c := u.CachedTokens(); c > u.PromptTokens {
		return failed(InvalidUsage, fmt.Errorf("usage cached_tokens %d exceeds prompt_tokens %d", c, u.PromptTokens))
	}
	return nil
}

// Chunk is what one chunk contributes to the measurement.
type Chunk struct {
	Content   string // answer text (delta.content or completion text)
	Generated bool   // the chunk carries generated output (TTFT/ITL point)
	Finish    string // finish_reason, "" if none
	Usage     *Usage // nil if the chunk has none

	buf []byte // content of a chunk with several choices, while it is built
}

// addContent appends one choice's answer text. A chunk of many choices is
// joined in a buffer, linear in the event's size (appending strings would
// copy the text per choice), and stops growing at MaxOutputBytes, all that
// a probe keeps of the answer.
func (p *Chunk) addContent(v string) {
	if v == "" {
		return
	}
	p.Generated = true
	switch {
	case p.Content == "" && p.buf == nil:
		p.Content = v // the common single-choice chunk: no copy
	case len(p.Content)+len(p.buf) >= MaxOutputBytes:
	default:
		if p.buf == nil {
			p.buf = append(make([]byte, 0, 2*(len(p.Content)+len(v))), p.Content...)
			p.Content = ""
		}
		p.buf = append(p.buf, v...)
	}
}

// done moves built content into content, so that both decoders return
// the same value.
func (p *Chunk) done() {
	if p.buf != nil {
		p.Content, p.buf = string(p.buf), nil
	}
}

// Parse decodes one chunk. The common, well-formed chunk takes the
// single-pass scanner (scanChunk, below); anything it is not sure to decode
// exactly as encoding/json would (and every error) takes encoding/json.
func Parse(data []byte) (Chunk, error) {
	if p, ok := scanChunk(data); ok {
		return p, nil
	}
	return parseChunkJSON(data)
}

// parseChunkJSON is the reference decoding of a chunk.
func parseChunkJSON(data []byte) (Chunk, error) {
	var c wireChunk
	if err := json.Unmarshal(data, &c); err != nil {
		return Chunk{}, failed(Malformed, fmt.Errorf("invalid JSON in stream: %v", err))
	}
	if len(c.Error) > 0 && !bytes.Equal(c.Error, []byte("null")) {
		return Chunk{}, failed(ServerError, fmt.Errorf("error in stream: %s", ErrorMessage(c.Error)))
	}
	p := Chunk{Usage: c.Usage}
	for _, ch := range c.Choices {
		// Reasoning counts as generated (it is what the user waits for) but
		// is not part of the answer that validators check.
		for _, s := range []*string{ch.Text, ch.Delta.Content} {
			if s != nil {
				p.addContent(*s)
			}
		}
		for _, s := range []*string{ch.Delta.ReasoningContent, ch.Delta.Reasoning} {
			if s != nil && *s != "" {
				p.Generated = true
			}
		}
		if tc := bytes.TrimSpace(ch.Delta.ToolCalls); len(tc) > 0 && !bytes.Equal(tc, []byte("null")) && !bytes.Equal(tc, []byte("[]")) {
			p.Generated = true
		}
		if ch.FinishReason != nil && *ch.FinishReason != "" {
			p.Finish = *ch.FinishReason
		}
	}
	p.done()
	return p, nil
}

// ErrorMessage extracts a short message from an OpenAI-style error value
// (an object with "message", or a bare string).
func ErrorMessage(raw json.RawMessage) string {
	var obj struct {
		Message string `json:"message"`
		Type    string `json:"type"`
		Code    any    `json:"code"`
	}
	if json.Unmarshal(raw, &obj) == nil && obj.Message != "" {
		if obj.Type != "" {
			return truncate(obj.Type+": "+obj.Message, 256)
		}
		return truncate(obj.Message, 256)
	}
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return truncate(s, 256)
	}
	return truncate(string(raw), 256)
}

// truncate cuts s to n bytes and marks the cut.
func truncate(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n] + "…"
}

// scanChunk is the fast path of Parse: one pass over the chunk that
// checks the JSON syntax of all of it and decodes only the fields we
// read, with one allocation for the content and one for usage. It gives up
// (ok false) whenever encoding/json might decode differently or fail: a
// key spelt with other case or escapes, a known key twice, a value of an
// unexpected type, a number that is not a plain integer, a non-null
// error, nesting deeper than scanMaxDepth. Given up, Parse decodes
// the chunk again with encoding/json, so the result is the same either way.
func scanChunk(data []byte) (Chunk, bool) {
	s := chunkScanner{b: data}
	var p Chunk
	ok := s.object(0, func(key []byte) bool {
		switch string(key) {
		case "choices":
			return s.choices(&p)
		case "usage":
			u, ok := s.usage()
			p.Usage = u
			return ok
		case "error":
			return s.literal("null")
		}
		return false
	}, chunkKeys)
	s.ws()
	if !ok || s.i != len(s.b) {
		return Chunk{}, false
	}
	p.done()
	return p, true
}

// Known keys per object, for refusing case variants and duplicates.
var (
	chunkKeys   = []string{"choices", "usage", "error"}
	choiceKeys  = []string{"text", "delta", "finish_reason"}
	deltaKeys   = []string{"content", "reasoning_content", "reasoning", "tool_calls"}
	usageKeys   = []string{"prompt_tokens", "completion_tokens", "prompt_tokens_details", "prompt_tokens_detail"}
	detailsKeys = []string{"cached_tokens"}
)

// scanMaxDepth bounds the nesting the scanner follows (encoding/json
// allows 10,000; deeper chunks are left to it).
const scanMaxDepth = 64

type chunkScanner struct {
	b []byte
	i int
}

func (s *chunkScanner) ws() {
	for s.i < len(s.b) {
		switch s.b[s.i] {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return
		}
	}
}

func (s *chunkScanner) peek() byte {
	s.ws()
	if s.i < len(s.b) {
		return s.b[s.i]
	}
	return 0
}

// object scans {...}. For a key in known it calls field, positioned at the
// value, which must consume it; other keys' values are checked and
// skipped. A known key seen twice, a key equal to a known one except for
// case, and a key with escapes or non-ASCII bytes all give up.
func (s *chunkScanner) object(depth int, field func(key []byte) bool, known []string) bool {
	if depth > scanMaxDepth || s.peek() != '{' {
		return false
	}
	s.i++
	var seen uint8 // bit i: known[i] seen
	if s.peek() == '}' {
		s.i++
		return true
	}
	for {
		if s.peek() != '"' {
			return false
		}
		key, plain, ok := s.str()
		if !ok || !plain {
			return false
		}
		if s.peek() != ':' {
			return false
		}
		s.i++
		idx := -1
		for k, name := range known {
			if string(key) == name {
				idx = k
				break
			}
			if bytes.EqualFold(key, []byte(name)) {
				return false
			}
		}
		if idx >= 0 {
			if seen&(1<<idx) != 0 {
				return false
			}
			seen |= 1 << idx
			s.ws()
			if !field(key) {
				return false
			}
		} else if !s.skip(depth + 1) {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case '}':
			s.i++
			return true
		default:
			return false
		}
	}
}

// str scans a string at s.i and returns its raw bytes between the
// quotes. plain reports that they are the decoded value as is: no escapes
// and valid UTF-8.
func (s *chunkScanner) str() (raw []byte, plain, ok bool) {
	if s.i >= len(s.b) || s.b[s.i] != '"' {
		return nil, false, false
	}
	start := s.i + 1
	plain, ascii := true, true
	for i := start; i < len(s.b); i++ {
		c := s.b[i]
		switch {
		case c == '"':
			s.i = i + 1
			raw = s.b[start:i]
			if !ascii && plain {
				plain = utf8.Valid(raw)
			}
			return raw, plain, true
		case c == '\\':
			plain = false
			i++
			if i >= len(s.b) {
				return nil, false, false
			}
			switch s.b[i] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
			case 'u':
				if i+4 >= len(s.b) {
					return nil, false, false
				}
				for _, h := range s.b[i+1 : i+5] {
					if !isHex(h) {
						return nil, false, false
					}
				}
				i += 4
			default:
				return nil, false, false
			}
		case c < 0x20:
			return nil, false, false
		case c >= 0x80:
			ascii = false
		}
	}
	return nil, false, false
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}

// text scans a string or null as encoding/json fills a *string: present
// is false for null.
func (s *chunkScanner) text() (string, bool, bool) {
	if s.peek() == 'n' {
		return "", false, s.literal("null")
	}
	at := s.i
	raw, plain, ok := s.str()
	if !ok {
		return "", false, false
	}
	if plain {
		return string(raw), true, true
	}
	var str string // escapes: decoded exactly as encoding/json does
	if json.Unmarshal(s.b[at:s.i], &str) != nil {
		return "", false, false
	}
	return str, true, true
}

// nonEmpty scans a string or null and reports whether it decodes to a
// non-empty string: every non-empty raw string does.
func (s *chunkScanner) nonEmpty() (bool, bool) {
	if s.peek() == 'n' {
		return false, s.literal("null")
	}
	raw, _, ok := s.str()
	return len(raw) > 0, ok
}

func (s *chunkScanner) literal(lit string) bool {
	s.ws()
	if !bytes.HasPrefix(s.b[s.i:], []byte(lit)) {
		return false
	}
	s.i += len(lit)
	return true
}

// number scans a JSON number and reports whether it is a plain integer
// (no fraction or exponent).
func (s *chunkScanner) number() (integer, ok bool) {
	b, i := s.b, s.i
	if i < len(b) && b[i] == '-' {
		i++
	}
	switch {
	case i < len(b) && b[i] == '0':
		i++
	case i < len(b) && b[i] >= '1' && b[i] <= '9':
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	default:
		return false, false
	}
	integer = true
	if i < len(b) && b[i] == '.' {
		integer = false
		i++
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	if i < len(b) && (b[i] == 'e' || b[i] == 'E') {
		integer = false
		i++
		if i < len(b) && (b[i] == '+' || b[i] == '-') {
			i++
		}
		if i >= len(b) || b[i] < '0' || b[i] > '9' {
			return false, false
		}
		for i < len(b) && b[i] >= '0' && b[i] <= '9' {
			i++
		}
	}
	s.i = i
	return integer, true
}

// integer scans a plain integer of at most 18 digits (no overflow).
func (s *chunkScanner) integer() (int, bool) {
	s.ws()
	start := s.i
	isInt, ok := s.number()
	if !ok || !isInt || s.i-start > 18 {
		return 0, false
	}
	n, neg := 0, false
	for _, c := range s.b[start:s.i] {
		if c == '-' {
			neg = true
			continue
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// skip checks and skips any value.
func (s *chunkScanner) skip(depth int) bool {
	if depth > scanMaxDepth {
		return false
	}
	switch s.peek() {
	case '{':
		return s.object(depth, nil, nil)
	case '[':
		return s.array(func() bool { return s.skip(depth + 1) })
	case '"':
		_, _, ok := s.str()
		return ok
	case 't':
		return s.literal("true")
	case 'f':
		return s.literal("false")
	case 'n':
		return s.literal("null")
	}
	_, ok := s.number()
	return ok
}

// choices scans the choices array (or null) into p, as parseChunkJSON
// folds them: text then delta.content per choice, in order.
func (s *chunkScanner) choices(p *Chunk) bool {
	if s.peek() == 'n' {
		return s.literal("null")
	}
	return s.array(func() bool {
		// What the choice holds, in the order parseChunkJSON folds it.
		var text, content, finish string
		ok := s.object(1, func(key []byte) bool {
			var ok bool
			switch string(key) {
			case "text":
				text, _, ok = s.text()
			case "finish_reason":
				finish, _, ok = s.text()
			case "delta":
				content, ok = s.delta(p)
			}
			return ok
		}, choiceKeys)
		if !ok {
			return false
		}
		p.addContent(text)
		p.addContent(content)
		if finish != "" {
			p.Finish = finish
		}
		return true
	})
}

// array scans a JSON array, calling elem at each element.
func (s *chunkScanner) array(elem func() bool) bool {
	if s.peek() != '[' {
		return false
	}
	s.i++
	if s.peek() == ']' {
		s.i++
		return true
	}
	for {
		if !elem() {
			return false
		}
		switch s.peek() {
		case ',':
			s.i++
		case ']':
			s.i++
			return true
		default:
			return false
		}
	}
}

// delta scans a delta object (or null), returning its content and
// marking p generated for reasoning or tool calls.
func (s *chunkScanner) delta(p *Chunk) (content string, ok bool) {
	if s.peek() == 'n' {
		return "", s.literal("null")
	}
	ok = s.object(2, func(key []byte) bool {
		switch string(key) {
		case "content":
			var ok bool
			content, _, ok = s.text()
			return ok
		case "reasoning_content", "reasoning":
			gen, ok := s.nonEmpty()
			p.Generated = p.Generated || gen
			return ok
		case "tool_calls":
			start := s.i
			if !s.skip(3) {
				return false
			}
			if tc := s.b[start:s.i]; string(tc) != "null" && string(tc) != "[]" {
				p.Generated = true
			}
			return true
		}
		return false
	}, deltaKeys)
	return content, ok
}

// usageBox holds a usage and its details in one allocation.
type usageBox struct {
	u Usage
	d struct {
		CachedTokens int `json:"cached_tokens"`
	}
}

// usage scans the usage object (or null).
func (s *chunkScanner) usage() (*Usage, bool) {
	if s.peek() == 'n' {
		return nil, s.literal("null")
	}
	box := &usageBox{}
	u := &box.u
	ok := s.object(1, func(key []byte) bool {
		var ok bool
		switch string(key) {
		case "prompt_tokens":
			u.PromptTokens, ok = s.integer()
		case "completion_tokens":
			u.CompletionTokens, ok = s.integer()
		// Both spellings would share box.d: a chunk with both gives up.
		case "prompt_tokens_details":
			u.PromptTokensDetails, ok = s.details(&box.d)
			ok = ok && u.PromptTokensDetail == nil
		case "prompt_tokens_detail":
			u.PromptTokensDetail, ok = s.details(&box.d)
			ok = ok && u.PromptTokensDetails == nil
		}
		return ok
	}, usageKeys)
	return u, ok
}

// details scans prompt_tokens_details (or null) into d.
func (s *chunkScanner) details(d *struct {
	CachedTokens int `json:"cached_tokens"`
}) (*struct {
	CachedTokens int `json:"cached_tokens"`
}, bool) {
	if s.peek() == 'n' {
		return nil, s.literal("null")
	}
	ok := s.object(2, func([]byte) bool {
		var ok bool
		d.CachedTokens, ok = s.integer()
		return ok
	}, detailsKeys)
	return d, ok
}
