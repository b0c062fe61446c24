package mockvllm

import "strings"

// words are the pseudo-tokens: one token is one word with a leading
// space, so a client can count tokens with strings.Fields.
var words = []string{"the", "quick", "brown", "fox", "jumps", "over", "a", "lazy",
	"dog", "and", "runs", "far", "into", "green", "hills", "at", "dawn"}

// tokenText returns the text of tokens [from, from+n) of any output; the
// same position always yields the same word.
func tokenText(from, n int) string {
	var b strings.Builder
	for i := from; i < from+n; i++ {
		b.WriteByte(' ')
		b.WriteString(words[i%len(words)])
	}
	return b.String()
}
