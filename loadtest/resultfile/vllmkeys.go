package resultfile

// Backend is vllm bench's name for the endpoint used ("backend" and
// "endpoint_type"): api is chat or completions.
func Backend(api string) string {
	if api == "completions" {
		return "openai"
	}
	return "openai-chat"
}

// Label is --label's value: s, or JSON null when empty (vllm bench's
// unset --label).
func Label(s string) any {
	if s == "" {
		return nil
	}
	return s
}
