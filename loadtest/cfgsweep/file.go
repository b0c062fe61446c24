package cfgsweep

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/llm-prober/llm-prober/internal/safefile"
)

// maxFileBytes caps a --server-config file: a thousand configurations
// of a few parameters fit in a fraction of it.
const maxFileBytes = 1 << 20

var configName = regexp.MustCompile(`^[A-Za-z0-9_][A-Za-z0-9_.-]*$`)

// ReadFile reads a --server-config file: one configuration a line,
//
//	[NAME:] PARAM=VALUE PARAM=VALUE …
//
// values quoted as in a shell where they hold blanks; blank lines and
// lines starting with # are skipped. Errors name the file and line.
func ReadFile(path string) ([]Configuration, error) {
	raw, err := safefile.ReadFile(path, maxFileBytes)
	if err != nil {
		return nil, fmt.Errorf("--server-config: %w", err)
	}
	return parseFile(path, string(raw))
}

func parseFile(path, text string) ([]Configuration, error) {
	var out []Configuration
	names := map[string]bool{}
	for n, line := range strings.Split(text, "\n") {
		at := fmt.Sprintf("--server-config %s:%d", path, n+1)
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		words, err := splitWords(line, false)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", at, err)
		}
		var c Configuration
		if len(words) > 0 && strings.HasSuffix(words[0], ":") && !strings.Contains(words[0], "=") {
			c.Name = strings.TrimSuffix(words[0], ":")
			if len(c.Name) > maxNameBytes || !configName.MatchString(c.Name) {
				return nil, fmt.Errorf("%s: configuration name %q: letters, digits, _ . and - only, at most %d bytes", at, c.Name, maxNameBytes)
			}
			if names[c.Name] {
				return nil, fmt.Errorf("%s: configuration name %q used twice", at, c.Name)
			}
			names[c.Name] = true
			words = words[1:]
		}
		if len(words) > maxParams {
			return nil, fmt.Errorf("%s: %d parameters (at most %d)", at, len(words), maxParams)
		}
		seen := map[string]bool{}
		for _, w := range words {
			name, v, ok := strings.Cut(w, "=")
			if !ok {
				return nil, fmt.Errorf("%s: %q is not PARAM=VALUE", at, w)
			}
			if err := checkName(name); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			if err := checkValue(name, v); err != nil {
				return nil, fmt.Errorf("%s: %w", at, err)
			}
			if seen[name] {
				return nil, fmt.Errorf("%s: %s set twice", at, name)
			}
			seen[name] = true
			c.Params = append(c.Params, Param{name, v})
		}
		if len(out) == MaxConfigurations {
			return nil, fmt.Errorf("%s: more than %d configurations", at, MaxConfigurations)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("--server-config %s: no configuration", path)
	}
	return out, nil
}
