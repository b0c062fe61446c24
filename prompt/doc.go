// Package prompt sizes prompts in the server's own tokens, for the daemon's
// prompt_tokens modules and for `llm-prober bench`: one vocabulary of
// common words, one client for the servers' POST /tokenize dialects, the
// server's context size, and calibration from usage.prompt_tokens where a
// server has no tokenizer endpoint.
//
// Every wait is bounded by the caller's context and every answer by a
// size cap proportional to what was sent, so a hostile or hanging server
// costs neither memory nor more time than the caller allowed.
package prompt
