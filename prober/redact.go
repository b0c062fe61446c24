package prober

import (
	"errors"
	"net/url"
)

// redactURLError removes the query (it may hold an API key) from the URL
// that net/http puts in its errors, which end up in logs and /logs.
func redactURLError(err error, redacted string) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		ue.URL = redacted
	}
	return err
}
