package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/llm-prober/llm-prober/loadtest/cfgsweep"
)

// A failed server's log is any bytes: the text escapes what a terminal
// would act on, the page what a browser would.
func TestConfigSweepEscapesServerText(t *testing.T) {
	r := &cfgsweep.Result{Mode: "start", Command: "serve <u>{x}</u>", KneeGoodput: 99, Rows: []cfgsweep.Row{
		{Params: []cfgsweep.Param{{Name: "x", Value: "1"}}, Key: "x=1", Status: cfgsweep.StatusOK, KneeRate: 5, KneeOffered: 6, KneeLow: 4, KneeHigh: 8, Tail: 99,
			Curve: []cfgsweep.CurvePoint{{Kind: "rate", Rate: 6, RequestRate: 5, OutputThroughput: 50, TailTTFT: 20, TailTPOT: 5, GoodputPercent: 100}}},
		{Params: []cfgsweep.Param{{Name: "x", Value: "<script>"}}, Key: "x=<script>", Status: cfgsweep.StatusFailed, Error: "the server exited during its sweep",
			ExitStatus: "signal: killed", LogTail: "ok line\n\x1b]52;c;cHduZWQ=\x07\x1b[2J<img src=x onerror=alert(1)>"},
	}, Best: &cfgsweep.Best{Label: "x=1", Why: "the highest knee"}}
	var text, page bytes.Buffer
	WriteConfigSweep(r, &text)
	if err := WriteConfigSweepHTML(r, &page); err != nil {
		t.Fatal(err)
	}
	if strings.ContainsAny(text.String(), "\x1b\x07") || !strings.Contains(text.String(), `  | \x1b]52;c;cHduZWQ=\x07\x1b[2J`) ||
		!strings.Contains(text.String(), "2 x=<script>: the server exited during its sweep (signal: killed)") {
		t.Errorf("text:\n%s", text.String())
	}
	p := page.String()
	if strings.ContainsAny(p, "\x1b\x07") || strings.Contains(p, "<script>") || strings.Contains(p, "<img") || strings.Contains(p, "<u>") ||
		!strings.Contains(p, "&lt;img src=x") || strings.Count(p, "<polyline") != 2 {
		t.Errorf("page:\n%s", p)
	}
	for _, want := range []string{"Knee per configuration", "5.00", "6.00 (4.00–8.00)", "Best configuration: x=1"} {
		if !strings.Contains(p, want) || !strings.Contains(text.String(), strings.TrimPrefix(want, "Knee per configuration")) {
			t.Errorf("lacks %q", want)
		}
	}
}
