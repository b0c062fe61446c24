package config

import (
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/prometheus/common/model"

	"github.com/llm-prober/llm-prober/backend"
)

// NewTarget builds the target that one discovered label set, already
// relabelled, describes: name, url, model, backend and labels from the
// labels (see LabelURL and the others), the rest from the template. It is
// checked as a static target is; errors name the field and the cause but no
// file line, as the data came from discovery.
func (td *TargetDiscovery) NewTarget(ls model.LabelSet) (*Target, error) {
	t := *td.Template
	t.Line = 0
	t.DiscoveredBy = td.Name
	t.Modules = append([]string(nil), td.Template.Modules...)
	t.URL = string(ls[LabelURL])
	if t.URL == "" {
		addr := string(ls[LabelAddress])
		if addr == "" {
			return nil, fmt.Errorf("neither %s nor %s is set", LabelURL, LabelAddress)
		}
		scheme := string(ls[LabelScheme])
		if scheme == "" {
			scheme = "http"
		}
		t.URL = scheme + "://" + addr
	}
	t.Name = string(ls[LabelTargetName])
	if t.Name == "" {
		t.Name = nameFromAddress(t.URL)
	}
	if m := ls[LabelModel]; m != "" {
		t.Model = string(m)
	}
	if b := ls[LabelBackend]; b != "" {
		t.Backend = Backend(b)
	}
	t.Labels = maps.Clone(td.Template.Labels)
	for k, v := range ls {
		if strings.HasPrefix(string(k), "__") {
			continue
		}
		if t.Labels == nil {
			t.Labels = model.LabelSet{}
		}
		t.Labels[k] = v
	}
	if t.Model == "" {
		return &t, fmt.Errorf("model: no %s label and no template.model", LabelModel)
	}
	c := &checker{lines: map[string]int{}}
	return &t, plain(c.discovered(&t))
}

// discovered runs the checks on what discovery and relabelling set.
func (c *checker) discovered(t *Target) error {
	if err := c.name("name", "target", t.Name); err != nil {
		return err
	}
	if err := c.url("url", t); err != nil {
		return err
	}
	if err := c.labels("labels", t.Labels); err != nil {
		return err
	}
	if !isBackend(t.Backend) {
		return c.fail("backend", "unknown backend %q (want one of %v)", t.Backend, backend.Names())
	}
	return nil
}

// isBackend reports whether b names a registered backend or auto.
func isBackend(b Backend) bool { return slices.Contains(backend.Names(), string(b)) }

// nameFromAddress is the URL's host:port, as Prometheus's instance label
// defaults to the address, with characters a name may not hold replaced.
func nameFromAddress(u string) string {
	_, hostport, _ := strings.Cut(u, "://")
	hostport, _, _ = strings.Cut(hostport, "/")
	b := []byte(hostport)
	for i, ch := range b {
		if !nameByte(ch) {
			b[i] = '_'
		}
	}
	return string(b)
}

// nameByte is nameRE's character class, without a regexp per byte.
func nameByte(c byte) bool {
	return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' || '0' <= c && c <= '9' || c == '_' || c == '.' || c == ':' || c == '-'
}

// plain drops the file and line from a checker error.
func plain(err error) error {
	var e *Error
	if errors.As(err, &e) {
		return fmt.Errorf("%s: %s", e.Path, e.Msg)
	}
	return err
}
