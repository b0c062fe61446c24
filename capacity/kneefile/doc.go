// Package kneefile reads the knee of a `llm-prober bench --sweep
// --output-json` result: the one reader the daemon's capacity block
// (`knee_file`, through package config) and `llm-prober plan --knee-file`
// share. The file is opened only if it is a regular file, scanned with
// internal/jsonscan under a byte cap, a depth cap and a point cap, its
// rates checked where they enter, and read no further than the knee's
// point; a Cache reads a file named by many targets once per config load.
//
// Imports: internal/jsonscan and internal/safefile only. Package config
// imports it, so it must never import config (nor bench's packages).
package kneefile
