package bench

import "github.com/alecthomas/kingpin/v2"

// ShardConfig is a shard's part of one run split across processes
// (docs/bench-sharding.md).
type ShardConfig struct {
	Shard      string // --shard: i/N, or i with --shard-count
	ShardCount int    // --shard-count ($LLM_PROBER_SHARD_COUNT)
	StartAt    string // --start-at, RFC 3339
}

func addShardFlags(c *kingpin.CmdClause, s *ShardConfig) {
	c.Flag("shard", "Send only part i of N of the run's schedule (i/N, or i with --shard-count; default: $JOB_COMPLETION_INDEX of an Indexed Job when a count is set): every shard draws the same schedule from --seed and sends request k when k mod N = i (a session by its id, a closed loop's users by theirs); merge the shards' --output-json files with `bench merge`.").StringVar(&s.Shard)
	c.Flag("shard-count", "How many shards the run is split into (see --shard).").Envar("LLM_PROBER_SHARD_COUNT").Default("0").IntVar(&s.ShardCount)
	c.Flag("start-at", "Start the schedule at this absolute time (RFC 3339, e.g. 2026-11-28T04:00:00Z): prompts are sized and the target checked first, then the run waits for it; every shard of a run must share it.").StringVar(&s.StartAt)
}
