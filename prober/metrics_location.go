package prober

import (
	"slices"

	"github.com/llm-prober/llm-prober/internal/exposition"
)

// SetLocation names where this prober runs (--probe.location or
// global.location): every schedule created afterwards carries it as the
// location label, so that the same targets probed from several places
// can be compared. Call it before the first Init; empty means no label.
func (m *Metrics) SetLocation(loc string) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.location = loc
}

// addLocation adds the location label to a new schedule's labels; m.mu
// is held.
func (m *Metrics) addLocation(s *schedule) {
	if m.location != "" {
		s.labels = exposition.NewLabelSet(append(slices.Clone(s.labels), exposition.NewLabel("location", m.location))...)
	}
}
