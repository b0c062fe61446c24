// Package textfmt formats numbers and headings for bench's and plan's
// terminal reports (centred titles, percentile names, compact floats).
//
// Imports: the standard library only.
package textfmt
