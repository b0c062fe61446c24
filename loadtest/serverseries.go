package loadtest

import "time"

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

// serverSeries keeps at most MaxServerSamples samples, evenly thinned.
type serverSeries struct {
	samples []ServerSample
	stride  int // keep one scrape in stride
	seen    int
}

func (s *serverSeries) add(x ServerSample) {
	if s.stride == 0 {
		s.stride = 1
	}
	s.seen++
	if (s.seen-1)%s.stride != 0 {
		return
	}
	if len(s.samples) >= MaxServerSamples {
		kept := s.samples[:0]
		for i := 0; i < len(s.samples); i += 2 {
			kept = append(kept, s.samples[i])
		}
		s.samples = kept
		s.stride *= 2
		if (s.seen-1)%s.stride != 0 {
			return
		}
	}
	s.samples = append(s.samples, x)
}
