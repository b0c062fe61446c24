// Package textfmt formats numbers and headings for bench's and plan's
// terminal reports (centred titles, percentile names, compact floats), and
// escapes terminal control sequences in text from servers and files
// (Safe, SafeWriter) wherever it is printed, served or exported.
//
// Imports: the standard library only.
package textfmt
