package textfmt

import (
	"strconv"
	"strings"
)

// PercentileName formats p as vllm bench does in its keys: 99, 99.9.
func PercentileName(p float64) string { return strconv.FormatFloat(p, 'f', -1, 64) }

func Center(title string, fill byte) string {
	const width = 50
	pad := width - len(title)
	if pad <= 0 {
		return title
	}
	return strings.Repeat(string(fill), pad/2) + title + strings.Repeat(string(fill), pad-pad/2)
}

func FmtG(v float64) string { return strconv.FormatFloat(v, 'g', 6, 64) }

func FmtNum(f *float64) string {
	if f == nil {
		return "n/a"
	}
	return strconv.FormatFloat(*f, 'f', 2, 64)
}
