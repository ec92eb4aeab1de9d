package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command's --help says what it does and shows how to call it: a
// newcomer reads --help before the docs.
func TestEveryCommandHasDescriptionAndExample(t *testing.T) {
	a := &app{io: streams{}, env: func(string) string { return "" }}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		for _, sub := range c.Commands() {
			if sub.Hidden || sub.Name() == "help" {
				continue
			}
			t.Run(sub.CommandPath(), func(t *testing.T) {
				if strings.TrimSpace(sub.Long) == "" {
					t.Errorf("%s has no description (Long)", sub.CommandPath())
				}
				if !strings.Contains(sub.Example, "gallivant "+sub.Name()) {
					t.Errorf("%s has no example calling it: %q", sub.CommandPath(), sub.Example)
				}
			})
			walk(sub)
		}
	}
	walk(a.newRootCmd())
}
