package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
)

// fakeClaude is a claude CLI that answers --version and `auth status` as
// the real one does, signed in or out.
func fakeClaude(t *testing.T, version string, signedIn bool) string {
	t.Helper()
	dir := t.TempDir()
	status := `echo "Not logged in. Run claude to sign in."; exit 1`
	if signedIn {
		status = `echo "Logged in as person@example.com"; exit 0`
	}
	script := "#!/bin/sh\ncase \"$1\" in\n--version) echo \"" + version + " (Claude Code)\";;\nauth) " + status + ";;\n*) echo unexpected \"$@\" >&2; exit 2;;\nesac\n"
	if err := os.WriteFile(filepath.Join(dir, "claude"), []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	return dir
}

// doctorRig is a stand-in with a control repository and a target with CI,
// configured so that every check is ok; each case breaks one thing.
type doctorRig struct {
	gh    *ghstandin.Server
	env   map[string]string
	files map[string]string
}

func newDoctorRig(t *testing.T) *doctorRig {
	t.Helper()
	gh := testserver.Start(t, "acme/api", "acme/control")
	gh.SetScopes(ghstandin.DefaultLogin, "repo", "workflow")
	if err := gh.PutFile("acme/api", "main", ".github/workflows/ci.yml", "on: [push, pull_request]\njobs: {}\n"); err != nil {
		t.Fatal(err)
	}
	return &doctorRig{gh: gh,
		env: map[string]string{"GITHUB_API_URL": gh.APIURL(), "GITHUB_TOKEN": gh.MainToken(), "GALLIVANT_CACHE": t.TempDir(),
			"PATH": fakeClaude(t, "2.1.3", true), "HOME": t.TempDir()},
		files: map[string]string{
			"gallivant.yaml": "defaults:\n  repo: acme/api\nexecutor:\n  kind: claude-code\n  escalation_model: opus\n  env: [PATH, HOME]\n",
			"specs/greet.md": "# Greet\n\n## Acceptance criteria\n1. Greets.\n",
		}}
}

func (r *doctorRig) run(t *testing.T) (int, doctorJSON, string) {
	t.Helper()
	for p, c := range r.files {
		if err := r.gh.PutFile("acme/control", "main", p, c); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--control", r.gh.GitURL("acme/control"), "--format", "json"},
		streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return r.env[k] })
	var got doctorJSON
	if err := json.Unmarshal(out.Bytes(), &got); err != nil {
		t.Fatalf("doctor --format json: %v\nstdout:\n%s\nstderr:\n%s", err, out.String(), errb.String())
	}
	return code, got, errb.String()
}

// verdict is a finding without its prose, for comparing.
type verdict struct {
	Check, Status, Subject string
}

func TestDoctorFindsEachMisconfiguration(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		setup func(t *testing.T, r *doctorRig)
		code  int
		want  []verdict // the findings that are not ok
		// found and fix are substrings of the first finding in want.
		found, fix string
	}{
		{name: "healthy", setup: func(*testing.T, *doctorRig) {}, code: 0},
		{name: "classic token missing the repo scope",
			setup: func(_ *testing.T, r *doctorRig) { r.gh.SetScopes(ghstandin.DefaultLogin, "read:org") },
			code:  1, want: []verdict{{"token", "fail", ""}},
			found: "scopes read:org", fix: "add the repo scope"},
		{name: "token missing the workflow scope",
			setup: func(_ *testing.T, r *doctorRig) { r.gh.SetScopes(ghstandin.DefaultLogin, "repo") },
			code:  0, want: []verdict{{"token", "warn", ""}}, fix: "add the workflow scope"},
		{name: "no token",
			setup: func(_ *testing.T, r *doctorRig) { delete(r.env, "GITHUB_TOKEN") },
			code:  1, want: []verdict{{"token", "fail", ""}}, found: "no GitHub token", fix: "export GITHUB_TOKEN="},
		{name: "control branch protected by required checks",
			setup: func(_ *testing.T, r *doctorRig) {
				r.gh.Protect("acme/control", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}})
			},
			code: 1, want: []verdict{{"control-branch", "fail", "acme/control@main"}},
			found: "required status check ci", fix: "bypass list"},
		{name: "control branch protected by a ruleset",
			setup: func(_ *testing.T, r *doctorRig) {
				r.gh.Protect("acme/control", "main", ghstandin.Protection{RequiredContexts: []string{"ci"}, Ruleset: true})
			},
			code: 1, want: []verdict{{"control-branch", "fail", "acme/control@main"}},
			found: "ruleset rule required_status_checks", fix: "Bypass list → Add bypass"},
		{name: "no CLI on PATH",
			setup: func(t *testing.T, r *doctorRig) { r.env["PATH"] = t.TempDir() },
			code:  1, want: []verdict{{"agent", "fail", "claude"}},
			found: "claude is not on PATH", fix: "npm install -g @anthropic-ai/claude-code"},
		{name: "CLI signed out",
			setup: func(t *testing.T, r *doctorRig) { r.env["PATH"] = fakeClaude(t, "2.1.3", false) },
			code:  1, want: []verdict{{"agent", "fail", "claude"}},
			found: "Not logged in", fix: "/login"},
		{name: "API key passed to the agent signs it in",
			setup: func(t *testing.T, r *doctorRig) {
				r.env["PATH"] = fakeClaude(t, "2.1.3", false)
				r.env["ANTHROPIC_API_KEY"] = "sk-ant-test"
				r.files["gallivant.yaml"] = "defaults:\n  repo: acme/api\nexecutor:\n  kind: claude-code\n  escalation_model: opus\n  env: [PATH, HOME, ANTHROPIC_API_KEY]\n"
			},
			code: 0},
		{name: "CLI older than the preset needs",
			setup: func(t *testing.T, r *doctorRig) { r.env["PATH"] = fakeClaude(t, "1.0.3", true) },
			code:  0, want: []verdict{{"agent", "warn", "claude"}}, found: "older than 2.0.0", fix: "upgrade it"},
		{name: "wrong target repository name",
			setup: func(_ *testing.T, r *doctorRig) {
				r.files["specs/calc.md"] = "---\nrepo: acme/calcc\n---\n# Calc\n\n## Acceptance criteria\n1. Adds.\n"
			},
			code: 1, want: []verdict{{"repository", "fail", "acme/calcc"}},
			found: "target repository does not exist or the token cannot see it (named in specs/calc.md)", fix: "correct the repository name in specs/calc.md"},
		{name: "read-only target",
			setup: func(t *testing.T, r *doctorRig) {
				tok, err := r.gh.SetRole("reader", ghstandin.RoleRead)
				if err != nil {
					t.Fatal(err)
				}
				r.env["GITHUB_TOKEN"] = tok
			},
			// read on the control repository too, and the Actions settings
			// are unreadable without admin.
			code: 1, want: []verdict{{"repository", "fail", "acme/api"}, {"repository", "fail", "acme/control"}},
			found: "read-only for the token", fix: "give the token write access to acme/api"},
		{name: "Actions disabled in the target",
			setup: func(_ *testing.T, r *doctorRig) { r.gh.SetActionsEnabled("acme/api", false) },
			code:  1, want: []verdict{{"actions", "fail", "acme/api"}}, fix: "Settings → Actions → General"},
		{name: "Actions' own GITHUB_TOKEN starts no CI",
			setup: func(_ *testing.T, r *doctorRig) {
				r.gh.ClearScopes(ghstandin.DefaultLogin)
				r.env["GITHUB_ACTIONS"] = "true"
			},
			code: 1, want: []verdict{{"actions", "fail", "acme/api"}}, found: "GitHub Actions' own GITHUB_TOKEN", fix: "GitHub App"},
		{name: "target without CI and not in checks.none",
			setup: func(_ *testing.T, r *doctorRig) {
				r.files["specs/web.md"] = "---\nrepo: acme/web\n---\n# Web\n\n## Acceptance criteria\n1. Serves.\n"
				if err := r.gh.CreateRepo("acme/web", "main"); err != nil {
					panic(err)
				}
			},
			code: 0, want: []verdict{{"checks", "warn", "acme/web"}}, fix: "checks: {none: [acme/web]}"},
		{name: "checks.none lists a target with CI",
			setup: func(_ *testing.T, r *doctorRig) {
				r.files["gallivant.yaml"] += "checks:\n  none: [acme/api]\n"
			},
			code: 0, want: []verdict{{"checks", "warn", "acme/api"}}, fix: "remove acme/api from checks.none"},
		{name: "no escalation model",
			setup: func(_ *testing.T, r *doctorRig) {
				r.files["gallivant.yaml"] = "defaults:\n  repo: acme/api\nexecutor:\n  kind: claude-code\n  env: [PATH, HOME]\n"
			},
			code: 0, want: []verdict{{"escalation", "warn", ""}}, found: "stops no-escalation-model", fix: "escalation_model: opus"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			r := newDoctorRig(t)
			tt.setup(t, r)
			code, got, stderr := r.run(t)
			var bad []verdict
			for _, f := range got.Findings {
				if f.Status.String() != "ok" {
					bad = append(bad, verdict{string(f.Check), f.Status.String(), f.Subject})
				}
			}
			if diff := cmp.Diff(tt.want, bad); diff != "" {
				t.Errorf("findings that are not ok (-want +got):\n%s\nall: %+v\nstderr: %s", diff, got.Findings, stderr)
			}
			if code != tt.code {
				t.Errorf("exit %d, want %d; findings: %+v", code, tt.code, got.Findings)
			}
			if len(tt.want) == 0 {
				return
			}
			for _, f := range got.Findings {
				if string(f.Check) == tt.want[0].Check && f.Status.String() == tt.want[0].Status && f.Subject == tt.want[0].Subject {
					if !strings.Contains(f.Found, tt.found) {
						t.Errorf("found = %q, want it to contain %q", f.Found, tt.found)
					}
					if !strings.Contains(f.Fix, tt.fix) {
						t.Errorf("fix = %q, want it to contain %q", f.Fix, tt.fix)
					}
					return
				}
			}
		})
	}
}

// Text output: one line per finding with the fix under it, a count, and
// exit 1 on a failure; a control repository that cannot be read is exit 2.
func TestDoctorTextAndExitCodes(t *testing.T) {
	t.Parallel()
	r := newDoctorRig(t)
	r.env["PATH"] = t.TempDir()
	for p, c := range r.files {
		if err := r.gh.PutFile("acme/control", "main", p, c); err != nil {
			t.Fatal(err)
		}
	}
	var out, errb bytes.Buffer
	code := run([]string{"doctor", "--control", r.gh.GitURL("acme/control")}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return r.env[k] })
	if code != 1 {
		t.Errorf("exit %d, want 1\n%s%s", code, out.String(), errb.String())
	}
	for _, want := range []string{
		"fail  agent           claude: claude is not on PATH\n",
		"                      fix: install it: npm install -g @anthropic-ai/claude-code",
		"ok    token           classic token of gallivant-bot from $GITHUB_TOKEN with scopes repo, workflow\n",
		"doctor: 7 ok, 0 warnings, 1 failure\n",
	} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output lacks %q:\n%s", want, out.String())
		}
	}
	out.Reset()
	errb.Reset()
	code = run([]string{"doctor", "--control", filepath.Join(t.TempDir(), "nothing")}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return r.env[k] })
	if code != 2 {
		t.Errorf("unreadable control repository: exit %d, want 2\n%s%s", code, out.String(), errb.String())
	}
	code = run([]string{"doctor", "--format", "yaml"}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return r.env[k] })
	if code != 2 {
		t.Errorf("--format yaml: exit %d, want 2", code)
	}
}

// init's workflow runs doctor before the pass, without holding it back
// and without a cache of its own.
func TestInitWorkflowRunsDoctorFirst(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "control")
	var out, errb bytes.Buffer
	if code := run([]string{"init", dir}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(string) string { return "" }); code != 0 {
		t.Fatalf("init: exit %d\n%s", code, errb.String())
	}
	data, err := os.ReadFile(filepath.Join(dir, ".github", "workflows", "gallivant.yml"))
	if err != nil {
		t.Fatal(err)
	}
	var wf struct {
		Jobs map[string]struct {
			Steps []struct {
				Uses            string            `yaml:"uses"`
				ContinueOnError bool              `yaml:"continue-on-error"`
				With            map[string]string `yaml:"with"`
			} `yaml:"steps"`
		} `yaml:"jobs"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		t.Fatal(err)
	}
	type step struct {
		Command, Cache  string
		ContinueOnError bool
	}
	var got []step
	for _, s := range wf.Jobs["reconcile"].Steps {
		if strings.HasPrefix(s.Uses, "gallivant/gallivant@") {
			got = append(got, step{s.With["command"], s.With["cache"], s.ContinueOnError})
		}
	}
	want := []step{{"doctor", "false", true}, {"reconcile", "", false}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("the reconcile job's gallivant steps (-want +got):\n%s", diff)
	}
}
