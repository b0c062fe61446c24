// Package jsonscan reads one JSON document from a reader a byte at a time
// under caps: bytes read, nesting depth, key and number length. Callers
// keep only the values they ask for (Str keeps at most a given number of
// bytes, Skip keeps nothing) and count the elements they keep, so a
// hostile document (60 MiB of '[', an endless body, a multi-GB string)
// costs a bounded amount of memory whatever its size. It is the reader of
// knee files (capacity/kneefile) and of Prometheus query answers
// (capacity/promsource).
//
// It imports only the standard library.
package jsonscan
