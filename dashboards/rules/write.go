package rules

import (
	"os"
	"path/filepath"
)

// Write generates the rule files into dir.
func Write(c Config, dir string) ([]string, error) {
	files, err := Render(c)
	if err != nil {
		return nil, err
	}
	var written []string
	for name, b := range files {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, b, 0o644); err != nil {
			return nil, err
		}
		written = append(written, p)
	}
	return written, nil
}
