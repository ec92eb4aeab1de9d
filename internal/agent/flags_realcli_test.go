//go:build realcli

package agent

import (
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// Every flag a preset passes exists in the pinned CLI: each flag of each
// invocation is looked up in the real CLI's --help (the installed CLIs'
// directory is GALLIVANT_AGENT_CLIS, from scripts/agent-clis.sh).
func TestPresetFlagsExistInPinnedCLIs(t *testing.T) {
	dir := os.Getenv("GALLIVANT_AGENT_CLIS")
	if dir == "" {
		t.Skip("GALLIVANT_AGENT_CLIS is not set: run scripts/agent-clis.sh (npm) and set it to the directory it prints")
	}
	help := func(args ...string) string {
		cmd := exec.Command(filepath.Join(dir, args[0]), append(args[1:], "--help")...)
		cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Skipf("%v --help: %v (not installed?)", args, err)
		}
		return string(out)
	}
	for bin, want := range map[string]string{"claude": PinnedClaudeCode + " (Claude Code)", "codex": "codex-cli " + PinnedCodex} {
		out, _ := exec.Command(filepath.Join(dir, bin), "--version").Output()
		if got := strings.TrimSpace(string(out)); got != want {
			t.Fatalf("%s --version %q, want %q", bin, got, want)
		}
	}
	e := CommandExecutor{}
	// Every optional flag is on: the escalation model and a dollar budget.
	task := Task{Pending: ledger.Pending{Target: 1, Member: "home", SHA: "abc"}, Model: "big", Brief: "b", MaxBudgetMicros: 1_500_000}
	flagRE := regexp.MustCompile(`^--?[a-z][a-z-]*`)
	for _, tc := range []struct {
		kind, session string
		help          []string
	}{
		{"claude-code", "", []string{"claude"}},
		{"claude-code", "s-1", []string{"claude"}},
		{"codex", "", []string{"codex", "exec"}},
		{"codex", "t-1", []string{"codex", "exec", "resume"}},
	} {
		inv, err := e.invocation(task, tc.kind, "/p.md", tc.session)
		if err != nil {
			t.Fatal(err)
		}
		text := help(tc.help...)
		for _, a := range inv.argv[1:] {
			f := flagRE.FindString(a)
			if f == "" || f == "-" {
				continue
			}
			if !regexp.MustCompile(`(^|[\s,])` + regexp.QuoteMeta(f) + `([\s,=<\[]|$)`).MatchString(text) {
				t.Errorf("%s passes %s, which `%s --help` does not list", tc.kind, f, strings.Join(tc.help, " "))
			}
		}
	}
}
