package config

import (
	"cmp"
	"regexp"
	"slices"
)

// nameRE bounds target and module names: both become label values.
var nameRE = regexp.MustCompile(`^[a-zA-Z0-9_.:-]+$`)

const maxNameLen = 64

// reservedBodyKeys are set by the prober from the module and target;
// extra_body may not override them.
var reservedBodyKeys = map[string]string{
	"model":          "the target's model",
	"stream":         "the prober (always true)",
	"messages":       "messages",
	"prompt":         "prompt",
	"stream_options": "stream_options",
	"max_tokens":     "max_tokens",
	"min_tokens":     "min_tokens",
	"temperature":    "temperature",
	"ignore_eos":     "ignore_eos",
}

var chatRoles = []string{"system", "developer", "user", "assistant"}

func (c *checker) name(path, kind, name string) error {
	switch {
	case name == "":
		return c.fail(path, "a %s needs a name", kind)
	case len(name) > maxNameLen:
		return c.fail(path, "name %q is longer than %d characters", name, maxNameLen)
	case !nameRE.MatchString(name):
		return c.fail(path, "name %q must match %s", name, nameRE)
	}
	return nil
}

func (c *checker) module(name string, m *Module) {
	path := join("modules", name)
	_ = c.name(path, "module", name)
	if m == nil {
		c.errf(path, "module is empty")
		return
	}
	if m.API == "" {
		m.API = APIChat
	}
	_ = c.moduleInput(path, m)
	c.cache(path, m)
	switch {
	case !c.set(path + ".max_tokens"):
		m.MaxTokens = DefaultMaxTokens
	case m.MaxTokens < 1:
		c.errf(path+".max_tokens", "max_tokens must be at least 1, got %d", m.MaxTokens)
	}
	if m.MinTokens < 0 || m.MinTokens > m.MaxTokens {
		c.errf(path+".min_tokens", "min_tokens %d must be between 0 and max_tokens %d", m.MinTokens, m.MaxTokens)
	}
	if m.Temperature != nil && *m.Temperature < 0 {
		c.errf(path+".temperature", "temperature must not be negative, got %g", *m.Temperature)
	}
	c.extraBody(path+".extra_body", m.ExtraBody)
	for _, b := range []**bool{&m.StreamOptions.IncludeUsage, &m.StreamOptions.ContinuousUsageStats} {
		if *b == nil {
			t := true
			*b = &t
		}
	}
	// YAML durations cannot be negative (model.ParseDuration has no sign);
	// this guards configs built in Go.
	if min(m.SLO.TTFT, m.SLO.TPOT, m.SLO.E2EL, m.SLO.MaxITL) < 0 {
		c.errf(path+".slo", "SLOs must not be negative")
	}
	c.maxITL(path+".slo.max_itl", m)
	if v := m.Validators.MinOutputTokens; v < 0 || v > m.MaxTokens {
		c.errf(path+".validators.min_output_tokens", "min_output_tokens %d must be between 0 and max_tokens %d", v, m.MaxTokens)
	}
}

// moduleInput checks that a module has the input its API needs, and only that.
func (c *checker) moduleInput(path string, m *Module) error {
	switch m.API {
	case APIChat:
		if m.Prompt != "" {
			return c.fail(path+".prompt", "prompt is for completions modules; chat modules use messages")
		}
		if len(m.Messages) == 0 && m.PromptTokens == 0 {
			return c.fail(path+".messages", "a chat module needs at least one message (or prompt_tokens)")
		}
		for i, msg := range m.Messages {
			if !slices.Contains(chatRoles, msg.Role) {
				c.errf(index(path+".messages", i)+".role", "role %q must be one of %v", msg.Role, chatRoles)
			}
		}
	case APICompletions:
		if len(m.Messages) > 0 {
			return c.fail(path+".messages", "messages are for chat modules; completions modules use prompt")
		}
		if m.Prompt == "" && m.PromptTokens == 0 {
			return c.fail(path+".prompt", "a completions module needs a prompt (or prompt_tokens)")
		}
	default:
		return c.fail(path+".api", "unknown api %q (want %q or %q)", m.API, APIChat, APICompletions)
	}
	return nil
}

func (c *checker) extraBody(path string, body map[string]any) {
	keys := make([]string, 0, len(body))
	for k := range body {
		keys = append(keys, k)
	}
	slices.SortFunc(keys, func(a, b string) int {
		return cmp.Or(cmp.Compare(c.lines[join(path, a)], c.lines[join(path, b)]), cmp.Compare(a, b))
	})
	for _, k := range keys {
		if owner, ok := reservedBodyKeys[k]; ok {
			c.errf(join(path, k), "%q may not be overridden; it is set from %s", k, owner)
		}
	}
}
