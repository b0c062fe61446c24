package testutil

import (
	"os"
	"testing"
)

// WriteFile writes body to path, readable by the owner only.
func WriteFile(t testing.TB, path, body string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
}
