// Package yamlbudget owns the budget of a YAML node tree before it is
// decoded: its size as if aliases and merge keys were expanded (nodes,
// text, text added by aliases, depth, pairs of mapping keys), alias
// cycles, and overlong regexes, measured in time linear in the document.
//
// It may import the standard library and gopkg.in/yaml.v3 only; config
// imports it, never the other way (config/layers_test.go).
package yamlbudget
