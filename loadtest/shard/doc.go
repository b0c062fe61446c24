// Package shard owns how one `llm-prober bench` run is split across
// processes: which part of the shared, seeded schedule a shard sends
// (Shard: request k to shard k mod N, a session by its id, a closed
// loop's users by theirs), the --shard and JOB_COMPLETION_INDEX
// parsing, and the clock estimate a shard records for the merge
// (Clock: the kernel's NTP state through adjtimex).
//
// Imports: the standard library and golang.org/x/sys only; the engine
// (loadtest) imports it, never the reverse.
package shard
