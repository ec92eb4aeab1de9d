package doctor

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

func TestParseVersion(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		want Version
		ok   bool
	}{
		{"2.0.14 (Claude Code)", Version{2, 0, 14}, true},
		{"codex-cli 0.58.0", Version{0, 58, 0}, true},
		{"aider 0.86", Version{0, 86, 0}, true},
		{"v1.2.3-beta", Version{1, 2, 3}, true},
		{"unknown", Version{}, false},
		{"99999999999999999999.1", Version{}, false},
	}
	for _, tt := range tests {
		got, ok := ParseVersion(tt.in)
		if diff := cmp.Diff(tt.want, got); diff != "" || ok != tt.ok {
			t.Errorf("ParseVersion(%q) = %v, %v; want %v, %v (-want +got):\n%s", tt.in, got, ok, tt.want, tt.ok, diff)
		}
	}
	if !Less(Version{1, 9, 9}, Version{2, 0, 0}) || Less(Version{2, 0, 0}, Version{2, 0, 0}) || !Less(Version{2, 0, 1}, Version{2, 1, 0}) {
		t.Error("Less orders versions wrongly")
	}
}

func FuzzParseVersion(f *testing.F) {
	for _, s := range []string{"2.0.14 (Claude Code)", "codex-cli 0.58.0", "", "1.", "1.2.3.4.5"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, ok := ParseVersion(s)
		if ok {
			if w, ok2 := ParseVersion(v.String()); !ok2 || w != v {
				t.Errorf("ParseVersion(%q) = %v, which does not round-trip (%v, %v)", s, v, w, ok2)
			}
		}
	})
}

func TestKindOf(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]TokenKind{"ghp_x": TokenClassic, "github_pat_x": TokenFineGrained, "ghs_x": TokenInstallation, "gho_x": TokenOAuth, "ghu_x": TokenOAuth, "x": TokenUnknown} {
		if got := KindOf(in); got != want {
			t.Errorf("KindOf(%q) = %s, want %s", in, got, want)
		}
	}
}

// Diagnose over facts the shell cannot easily produce from the stand-in.
func TestDiagnose(t *testing.T) {
	t.Parallel()
	yes := true
	base := func() Facts {
		cfg := specs.DefaultConfig()
		cfg.Executor.Kind = specs.ExecutorCodex
		cfg.Executor.EscalationModel = "gpt-5-codex"
		return Facts{Config: cfg,
			Token:   Token{Var: "GITHUB_TOKEN", Kind: TokenClassic, Login: "bot", Scopes: []string{"repo", "workflow"}, ScopesReported: true},
			Control: Branch{Name: "main", Local: true},
			Agent:   Agent{Kind: specs.ExecutorCodex, Program: "codex", Path: "/usr/bin/codex", Version: "codex-cli 0.58.0", SignedIn: &yes, Status: "Logged in using ChatGPT"}}
	}
	tests := []struct {
		name   string
		change func(f *Facts)
		want   []Finding // the findings that are not ok, prose included
	}{
		{name: "all ok", change: func(*Facts) {}},
		{name: "public_repo only", change: func(f *Facts) { f.Token.Scopes = []string{"public_repo", "workflow"} },
			want: []Finding{{Check: CheckToken, Status: Warn, Found: "classic token of bot from $GITHUB_TOKEN with scopes public_repo, workflow: public_repo reaches public repositories only",
				Fix: "add the repo scope to the token (https://github.com/settings/tokens → the token → repo) if any control or target repository is private"}}},
		{name: "protected by rules the token cannot read", change: func(f *Facts) { f.Control = Branch{Repo: "acme/control", Name: "main", Protected: true} },
			want: []Finding{{Check: CheckControl, Status: Warn, Subject: "acme/control@main", Found: "main is protected, by rules the token cannot read: a push of gallivant's loop: commits may be refused",
				Fix: "make sure bot may push to main directly (a ruleset bypass, or no required reviews or checks on it)"}}},
		{name: "a ruleset rule that allows pushes is no failure", change: func(f *Facts) {
			f.Control = Branch{Repo: "acme/control", Name: "main", Protected: true, Rules: []string{"deletion"}}
		}, want: []Finding{{Check: CheckControl, Status: Warn, Subject: "acme/control@main", Found: "main is protected, by rules the token cannot read: a push of gallivant's loop: commits may be refused",
			Fix: "make sure bot may push to main directly (a ruleset bypass, or no required reviews or checks on it)"}}},
		{name: "no executor", change: func(f *Facts) {
			f.Config.Executor.Kind = specs.ExecutorNone
			f.Agent = Agent{Kind: specs.ExecutorNone}
		}, want: []Finding{{Check: CheckAgent, Status: Warn, Found: "executor.kind is none: passes seed ledgers but dispatch no agent",
			Fix: "set executor.kind in gallivant.yaml (claude-code, codex, aider, command or workflow; docs/agents.md)"}}},
		{name: "run_as leaves sign-in unchecked", change: func(f *Facts) { f.Agent.SignedIn, f.Agent.RunAs = nil, "agent" },
			want: []Finding{{Check: CheckAgent, Status: Warn, Subject: "codex", Found: "the agent runs as agent (executor.run_as): its sign-in was not checked",
				Fix: "run gallivant doctor as agent, or check the sign-in there: run `codex login` as the agent's user, or export OPENAI_API_KEY and list it in executor.env"}}},
		{name: "a token GitHub refused hides the repository checks", change: func(f *Facts) {
			f.Token = Token{Var: "GITHUB_TOKEN", Error: "401 Bad credentials"}
			f.Repos = []Repo{{Name: "acme/api", Role: RoleTarget}}
		}, want: []Finding{{Check: CheckToken, Status: Fail, Found: "GitHub refused the token in $GITHUB_TOKEN: 401 Bad credentials", Fix: "set $GITHUB_TOKEN to a valid, unexpired token"}}},
	}
	for _, tt := range tests {
		f := base()
		tt.change(&f)
		var got []Finding
		for _, x := range Diagnose(f) {
			if x.Status != OK {
				got = append(got, x)
			}
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.name, diff)
		}
	}
}

// Every finding that is not ok says how to fix it.
func TestEveryProblemHasAFix(t *testing.T) {
	t.Parallel()
	no := false
	disabled := false
	cfg := specs.DefaultConfig()
	cfg.Executor.Kind = specs.ExecutorClaudeCode
	f := Facts{Config: cfg,
		Token: Token{Var: "GITHUB_TOKEN", Kind: TokenInstallation, InActions: true, Scopes: []string{}, ScopesReported: true},
		Repos: []Repo{{Name: "acme/a", Role: RoleTarget}, {Name: "acme/b", Role: RoleTarget, Found: true}, {Name: "acme/c", Role: RoleTarget, Error: "boom"},
			{Name: "acme/d", Role: RoleTarget, Found: true, Push: true, WorkflowsKnown: true, ActionsEnabled: &disabled}},
		Control: Branch{Repo: "acme/control", Name: "main", Protected: true, RequiredChecks: []string{"ci"}},
		Agent:   Agent{Kind: specs.ExecutorClaudeCode, Program: "claude", Path: "/bin/claude", VersionError: "exit 1", SignedIn: &no}}
	n := 0
	for _, x := range Diagnose(f) {
		if x.Status != OK {
			n++
			if strings.TrimSpace(x.Fix) == "" {
				t.Errorf("%s %s %s has no fix: %s", x.Status, x.Check, x.Subject, x.Found)
			}
		}
	}
	if n < 8 {
		t.Errorf("only %d findings are not ok; the facts hold at least 8 problems", n)
	}
}
