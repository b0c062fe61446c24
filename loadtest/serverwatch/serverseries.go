package serverwatch

import (
	"time"
)

// MaxServerSamples bounds the server time series a run keeps: past it,
// every other sample is dropped and the spacing doubles, so a week-long
// run at one scrape a second costs what a three-hour one does.
const MaxServerSamples = 10000

// ServerSample is one scrape of the server during a run.
type ServerSample struct {
	At          time.Time
	KVUsage     float64 // 0..1
	Running     float64
	Waiting     float64
	Preemptions float64 // the counter as scraped; the report draws its increase
}

// ServerSeries keeps at most MaxServerSamples samples, evenly thinned.
type ServerSeries struct {
	Samples []ServerSample
	stride  int // keep one scrape in stride
	seen    int
}

func (s *ServerSeries) Add(x ServerSample) {
	if s.stride == 0 {
		s.stride = 1
	}
	s.seen++
	if (s.seen-1)%s.stride != 0 {
		return
	}
	if len(s.Samples) >= MaxServerSamples {
		kept := s.Samples[:0]
		for i := 0; i < len(s.Samples); i += 2 {
			kept = append(kept, s.Samples[i])
		}
		s.Samples = kept
		s.stride *= 2
		if (s.seen-1)%s.stride != 0 {
			return
		}
	}
	s.Samples = append(s.Samples, x)
}
