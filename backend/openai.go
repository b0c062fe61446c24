package backend

// OpenAI is the backend: of a target known only by its OpenAI-compatible
// API (a gateway, a hosted endpoint, a server not listed here).
const OpenAI = "openai"

// Generic: no /tokenize, no server-metrics mapping (a scrape gives health
// and passthrough only), nothing beyond the OpenAI API.
func init() {
	register(&Backend{Name: OpenAI, Title: "any OpenAI-compatible server", Rank: 99})
}
