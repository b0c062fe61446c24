package main

import (
	"strings"
	"text/template"

	"github.com/alecthomas/kingpin/v2"
)

// usageTemplate is kingpin's default help with one change: the help of a
// command that has a default subcommand lists that subcommand's flags as
// its own, since `command [flags]` runs it. bench's run flags belong to
// its default subcommand run (so that bench compare shows only its own),
// and `bench --help` shows them as before.
var usageTemplate = strings.NewReplacer(
	`{{template "FormatUsage" .Context.SelectedCommand}}`,
	`{{template "FormatUsage" (withDefault .Context.SelectedCommand)}}`,
	`{{.Context.Flags|FlagsToTwoColumns|FormatTwoColumns}}`,
	`{{flagsWithDefault .Context.Flags .Context.SelectedCommand|FlagsToTwoColumns|FormatTwoColumns}}`,
).Replace(kingpin.DefaultUsageTemplate)

var usageFuncs = template.FuncMap{
	"withDefault":      withDefault,
	"flagsWithDefault": flagsWithDefault,
}

// setUsage gives app the help of usageTemplate.
func setUsage(app *kingpin.Application) {
	app.UsageTemplate(usageTemplate).UsageFuncs(usageFuncs)
}

// defaultSubcommand is cmd's default subcommand, or nil.
func defaultSubcommand(cmd *kingpin.CmdModel) *kingpin.CmdModel {
	if cmd == nil {
		return nil
	}
	for _, sub := range cmd.Commands {
		if sub.Default {
			return sub
		}
	}
	return nil
}

// withDefault is cmd with its default subcommand's flags added to its own
// (for the usage line's [<flags>]).
func withDefault(cmd *kingpin.CmdModel) *kingpin.CmdModel {
	d := defaultSubcommand(cmd)
	if d == nil {
		return cmd
	}
	c := *cmd
	c.FlagGroupModel = &kingpin.FlagGroupModel{Flags: flagsWithDefault(cmd.Flags, cmd)}
	return &c
}

// flagsWithDefault is flags, those of the selected command, with its
// default subcommand's after them.
func flagsWithDefault(flags []*kingpin.FlagModel, cmd *kingpin.CmdModel) []*kingpin.FlagModel {
	d := defaultSubcommand(cmd)
	if d == nil {
		return flags
	}
	return append(append([]*kingpin.FlagModel{}, flags...), d.Flags...)
}
