package main

import (
	"strings"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/spf13/cobra"
)

func (a *app) newCompletionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "completion bash|zsh|fish|powershell",
		Short: "Print a shell completion script",
		Long: `completion prints a completion script for bash, zsh, fish or PowerShell on standard
output. It completes commands and flags, and SPEC arguments (of why, log,
task and status) with the specs of the control repository named by
--control, or of the current directory.

bash needs the bash-completion package; zsh needs compinit enabled.`,
		Example: `  source <(gallivant completion bash)
  gallivant completion bash > ~/.local/share/bash-completion/completions/gallivant
  gallivant completion zsh > "${fpath[1]}/_gallivant"
  gallivant completion fish > ~/.config/fish/completions/gallivant.fish
  gallivant completion powershell | Out-String | Invoke-Expression`,
		ValidArgs: []string{"bash", "zsh", "fish", "powershell"},
		Args:      cobra.MatchAll(cobra.ExactArgs(1), cobra.OnlyValidArgs),
		RunE: func(cmd *cobra.Command, args []string) error {
			root := cmd.Root()
			switch args[0] {
			case "bash":
				return root.GenBashCompletionV2(a.io.Out, true)
			case "zsh":
				return root.GenZshCompletion(a.io.Out)
			case "powershell":
				return root.GenPowerShellCompletionWithDesc(a.io.Out)
			default:
				return root.GenFishCompletion(a.io.Out, true)
			}
		},
	}
}

// completeSpecs completes a SPEC argument with the spec paths of the
// control repository, and their file names without .md (what a person
// types). A control URL is not cloned for a completion: that would make a
// tab press wait on the network.
func (a *app) completeSpecs(control *string) func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
	return func(cmd *cobra.Command, args []string, toComplete string) ([]string, cobra.ShellCompDirective) {
		if len(args) > 0 || strings.Contains(*control, "://") || strings.HasPrefix(*control, "git@") {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		st, err := store.Open(cmd.Context(), store.Options{Control: *control, CacheDir: a.cacheDir()})
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		snap, err := reconcile.Load(cmd.Context(), st)
		if err != nil {
			return nil, cobra.ShellCompDirectiveNoFileComp
		}
		var out []string
		for _, sp := range snap.Repo.SpecPaths() {
			name := strings.TrimSuffix(sp[strings.LastIndex(sp, "/")+1:], ".md")
			for _, c := range []string{sp, name} {
				if strings.HasPrefix(c, toComplete) {
					out = append(out, c)
				}
			}
		}
		return out, cobra.ShellCompDirectiveNoFileComp
	}
}
