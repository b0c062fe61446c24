package backend

// Source is one server family that feeds a normalised family.
type Source struct {
	// Name is the family name as exposed. Counters match with or without
	// the _total suffix, so either spelling works.
	Name string
	// Match keeps only series whose labels have these values.
	Match map[string]string
	// Labels fills our extra labels from source labels; the first source
	// label present wins (servers renamed some labels across versions).
	Labels map[string][]string
	// Const fills our extra labels with fixed values, or the default when
	// none of the Labels sources is present.
	Const map[string]string
	// Scale multiplies values, histogram bounds and sums (e.g. 0.001 for
	// ms); zero means 1.
	Scale float64
	// HistogramSum reads a histogram's _sum as a counter (TGI only has
	// token-count histograms; their sum is an honest counter).
	HistogramSum bool
	// ValueLabel reads the value from this label of an info series (e.g.
	// num_gpu_blocks of vllm:cache_config_info); series where it is not a
	// number are skipped.
	ValueLabel string
}

// Rule maps sources onto one normalised family.
type Rule struct {
	Family  Family
	Sources []Source
	// All sums every present source; otherwise the first present source
	// wins, which is how legacy names are aliased.
	All bool
}
