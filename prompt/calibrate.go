package prompt

import "strings"

// Calibration is what a server's tokenizer makes of Words when it has no
// /tokenize, learnt from usage.prompt_tokens of two requests whose
// prompts differ only in length: tokens = Overhead + TokensPerWord × words.
type Calibration struct {
	TokensPerWord float64
	// Overhead is what the server adds to every prompt (BOS; for chat,
	// the template).
	Overhead int
}

// maxCalibrationWords bounds the longer calibration prompt: more words
// sharpen the slope little and cost prefill.
const maxCalibrationWords = 576

// CalibrationWords are the two calibration prompts for a run of prompts
// of about tokens: the longer is half of it (a sub-word tokenizer makes
// more tokens than words, and the run's own prompts must fit the
// server's context anyway) and is the shorter one twice, so both have
// the same mix of words and their difference is words alone.
func CalibrationWords(tokens int) (short, long string) {
	n := min(max(tokens/4, 4), maxCalibrationWords/2)
	w := make([]string, n)
	for i := range w {
		w[i] = Words[i*7%len(Words)] // 7 is prime to len(Words): n distinct words
	}
	short = strings.Join(w, " ")
	return short, short + " " + short
}

// FromUsage fits the line through two (words, prompt tokens) points;
// false when they make no positive slope (a server reporting no usage).
func FromUsage(shortWords, shortTokens, longWords, longTokens int) (Calibration, bool) {
	if shortTokens <= 0 || longTokens <= shortTokens || longWords <= shortWords {
		return Calibration{}, false
	}
	tpw := float64(longTokens-shortTokens) / float64(longWords-shortWords)
	return Calibration{TokensPerWord: tpw, Overhead: shortTokens - int(tpw*float64(shortWords)+0.5)}, true
}
