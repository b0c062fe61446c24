package config

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/prometheus/common/model"
)

// Placeholders that let the template pass the static target checks, which
// also apply its defaults; they are cleared afterwards.
const (
	templateName  = "template"
	templateURL   = "http://template.invalid"
	templateModel = "template"
)

func (c *checker) discoveries(cfg *Config) {
	seen := map[string]string{}
	for i, td := range cfg.TargetDiscovery {
		path := index("target_discovery", i)
		if td == nil {
			c.errf(path, "target_discovery entry is empty")
			continue
		}
		td.Line = c.lines[path]
		if c.name(path+".name", "target_discovery entry", td.Name) == nil {
			if first, dup := seen[td.Name]; dup {
				c.errf(path+".name", "duplicate target_discovery name %q (first used at line %d)", td.Name, c.lines[first])
			} else {
				seen[td.Name] = path
			}
		}
		if len(td.SDConfigs) == 0 {
			c.errf(path, "a target_discovery entry needs at least one *_sd_configs (file, http or kubernetes)")
		}
		if td.MaxTargets < 0 {
			c.errf(path+".max_targets", "must not be negative")
		}
		for _, hc := range sdClients(td, path) {
			if hc.FollowRedirects && sendsCredentials(hc.HTTPClientConfig) {
				c.errf(hc.path+".follow_redirects", "a discovery that follows redirects would send its credentials and headers to whatever host or port a redirect names; remove follow_redirects: true or the credentials")
			}
		}
		for j, rc := range td.RelabelConfigs {
			if rc == nil {
				c.errf(index(path+".relabel_configs", j), "relabel config is empty")
			} else if err := rc.Validate(model.UTF8Validation); err != nil {
				c.errf(index(path+".relabel_configs", j), "%v", err)
			}
		}
		c.template(path+".template", td, cfg)
	}
}

// template validates the template as a static target would be, applying
// the same defaults, but rejects what relabelling alone must set.
func (c *checker) template(path string, td *TargetDiscovery, cfg *Config) {
	if td.Template == nil {
		c.errf(path, "a target_discovery entry needs a template (at least its modules)")
		return
	}
	for _, f := range []string{"name", "url"} {
		if c.set(path + "." + f) {
			c.errf(path+"."+f, "%s comes from relabel_configs (%s, %s), not the template", f, LabelTargetName, LabelURL)
		}
	}
	t := td.Template
	t.Name, t.URL = templateName, templateURL
	noModel := t.Model == ""
	if noModel {
		t.Model = templateModel
	}
	_ = c.target(path, t, cfg)
	t.Name, t.URL = "", ""
	if noModel {
		t.Model = ""
	}
}

func (c *checker) location(path, loc string) error {
	if err := CheckLocation(loc); err != nil {
		return c.fail(path, "%v", err)
	}
	return nil
}

// CheckLocation validates a location label value (from the file or
// --probe.location).
func CheckLocation(loc string) error {
	switch {
	case !utf8.ValidString(loc):
		return errors.New("location is not valid UTF-8")
	case len(loc) > maxNameLen:
		return fmt.Errorf("location %q is longer than %d characters", loc, maxNameLen)
	case strings.TrimSpace(loc) != loc:
		return fmt.Errorf("location %q has leading or trailing spaces", loc)
	}
	return nil
}
