package web

import (
	"fmt"
	"html/template"
	"math"
	"strings"
)

const sparkWidth, sparkHeight = 120, 20

// sparkline draws v (one point per minute, NaN for none) as a small inline
// SVG, scaled to [0, top] or to its own maximum when top is 0. A gap in
// the data is a gap in the line; a lone point is a dot. The SVG holds only
// numbers, so it is safe to mark as HTML.
func sparkline(v []float64, top float64, title string) template.HTML {
	if top <= 0 {
		for _, x := range v {
			if !math.IsNaN(x) && x > top {
				top = x
			}
		}
	}
	if top <= 0 {
		top = 1
	}
	step := float64(sparkWidth) / float64(max(len(v)-1, 1))
	var b strings.Builder
	fmt.Fprintf(&b, `<svg class="spark" width="%d" height="%d" viewBox="0 0 %d %d" role="img"><title>%s</title>`,
		sparkWidth, sparkHeight, sparkWidth, sparkHeight, template.HTMLEscapeString(title))
	var seg []string
	flush := func() {
		switch len(seg) {
		case 0:
		case 1:
			var x, y float64
			_, _ = fmt.Sscanf(seg[0], "%g,%g", &x, &y)
			fmt.Fprintf(&b, `<circle cx="%.1f" cy="%.1f" r="1.5"/>`, x, y)
		default:
			fmt.Fprintf(&b, `<polyline points="%s"/>`, strings.Join(seg, " "))
		}
		seg = seg[:0]
	}
	for i, x := range v {
		if math.IsNaN(x) {
			flush()
			continue
		}
		y := sparkHeight - 1 - min(x/top, 1)*(sparkHeight-2)
		seg = append(seg, fmt.Sprintf("%.1f,%.1f", float64(i)*step, y))
	}
	flush()
	b.WriteString("</svg>")
	return template.HTML(b.String())
}
