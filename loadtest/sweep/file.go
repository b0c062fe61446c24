package sweep

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"strconv"

	"github.com/llm-prober/llm-prober/loadtest/summary"
)

// WriteJSON writes the sweep's --output-json file (bench --sweep's and
// bench merge's): the knee and every point: its kind, bottleneck,
// aggregate and requests, as the single-run file has them (vllm bench
// keys: input_lens, output_lens, ttfts, itls, errors, then requests),
// copied from files[p], the point's own result file.
func WriteJSON(path string, sw *Sweep, files map[*Point]string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := bufio.NewWriterSize(f, 256<<10)
	w.WriteString("{\n  \"knee_goodput_percent\": " + strconv.FormatFloat(sw.KneeGoodput, 'g', -1, 64))
	pr, _ := json.Marshal(sw.Prompts)
	fmt.Fprintf(w, ",\n  \"llm_prober_prompts\": %s", pr)
	num := func(v float64) string {
		if math.IsInf(v, 0) || math.IsNaN(v) {
			return "null" // unbounded
		}
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	// A lower bound is never written under the knee's keys: a reader that
	// knows no status still finds no knee and refuses the file.
	switch {
	case sw.Knee != nil:
		w.WriteString(",\n  \"llm_prober_knee_status\": \"found\"")
		w.WriteString(",\n  \"knee_request_rate\": " + num(sw.Knee.Rate))
		w.WriteString(",\n  \"knee_achieved_request_rate\": " + num(sw.KneeRate()))
		fmt.Fprintf(w, ",\n  \"llm_prober_knee_monotone\": %t", sw.Rebound == nil)
	case sw.Above != nil:
		w.WriteString(",\n  \"llm_prober_knee_status\": \"lower_bound\"")
		w.WriteString(",\n  \"llm_prober_knee_lower_bound_request_rate\": " + num(sw.Above.Rate))
		w.WriteString(",\n  \"llm_prober_knee_lower_bound_achieved_request_rate\": " + num(sw.Above.Report.RequestThroughput))
	case sw.Interrupted:
		w.WriteString(",\n  \"llm_prober_knee_status\": \"interrupted\"")
	default:
		w.WriteString(",\n  \"llm_prober_knee_status\": \"not_found\"")
	}
	if lo, hi, ok := sw.KneeCI(); ok && (sw.Knee != nil || sw.Above != nil) {
		fmt.Fprintf(w, ",\n  \"llm_prober_knee_request_rate_ci95\": [%s, %s]", num(lo), num(hi))
	}
	if sw.Knee != nil || sw.Above != nil {
		k, _ := json.Marshal(sw.KneeSummary())
		fmt.Fprintf(w, ",\n  \"knee\": %s", k)
	}
	if m := sw.Monotonicity(); m != "" {
		k, _ := json.Marshal(m)
		fmt.Fprintf(w, ",\n  \"llm_prober_knee_warning\": %s", k)
	}
	w.WriteString(",\n  \"points\": [")
	for i, p := range sw.Points {
		if i > 0 {
			w.WriteString(",")
		}
		w.WriteString("\n")
		if err := copyPointJSON(w, p, files[p]); err != nil {
			f.Close()
			return err
		}
	}
	w.WriteString("\n  ]\n}\n")
	return errors.Join(w.Flush(), f.Close())
}

// copyPointJSON writes point p: its file, else (none written) the
// aggregate alone.
func copyPointJSON(w *bufio.Writer, p *Point, file string) error {
	if file != "" {
		pf, err := os.Open(file)
		if err != nil {
			return err
		}
		defer pf.Close()
		st, err := pf.Stat()
		if err != nil {
			return err
		}
		// The point's file ends in "}\n": leave the newline out.
		_, err = io.Copy(w, io.LimitReader(pf, max(st.Size()-1, 0)))
		return err
	}
	head := append([]summary.KV{{Key: "kind", Value: p.Kind}, {Key: "bottleneck", Value: p.Verdict}}, p.Report.VLLMKeys()...)
	w.WriteString("    {")
	for j, kv := range head {
		if j > 0 {
			w.WriteString(", ")
		}
		v, err := jsonValue(kv.Value)
		if err != nil {
			return err
		}
		fmt.Fprintf(w, "%q: %s", kv.Key, v)
	}
	w.WriteString("}")
	return nil
}

func jsonValue(v any) (string, error) {
	if f, ok := v.(float64); ok && (math.IsInf(f, 0) || math.IsNaN(f)) {
		return `"` + strconv.FormatFloat(f, 'g', -1, 64) + `"`, nil
	}
	b, err := json.Marshal(v)
	return string(b), err
}
