package web

import (
	"fmt"
	"strings"
)

// fleetLine says, for the status page, which shard this replica is and
// what discovery found, e.g.
//
//	shard 1 of 4: 2,503 of 10,000 targets · discovery vllm-pods: 9,990 targets, 10 dropped (invalid 10)
//
// Empty for a single replica without discovery.
func (u *UI) fleetLine() string {
	if u.o.Fleet == nil {
		return ""
	}
	s := u.o.Fleet.Summary()
	var parts []string
	if s.Shard.Count > 1 {
		parts = append(parts, fmt.Sprintf("shard %d of %d: %s of %s targets", s.Shard.Index, s.Shard.Count, thousands(s.Targets), thousands(s.Total)))
	}
	for _, e := range s.Entries {
		p := fmt.Sprintf("discovery %s: %s targets", e.Name, thousands(e.Targets))
		var dropped []string
		n := 0
		for _, r := range []string{"relabel", "invalid", "duplicate"} {
			if c := e.Dropped[r]; c > 0 {
				dropped = append(dropped, fmt.Sprintf("%s %s", r, thousands(c)))
				n += c
			}
		}
		if n > 0 {
			p += fmt.Sprintf(", %s dropped (%s)", thousands(n), strings.Join(dropped, ", "))
		}
		parts = append(parts, p)
	}
	return strings.Join(parts, " · ")
}

func thousands(n int) string {
	s := fmt.Sprint(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
