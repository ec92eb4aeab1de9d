package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
)

// Under --log-format json every line on standard error is one JSON object
// with time, level and msg — the problems, the waits and the summary
// included — for reconcile, daemon --once, check and a command that fails.
func TestJSONLogsEveryStderrLine(t *testing.T) {
	t.Parallel()
	gh := testserver.Start(t, "acme/api")
	ctl := filepath.Join(t.TempDir(), "ctl")
	files := map[string]string{
		"gallivant.yaml":  "defaults:\n  repo: acme/api\nexecutor:\n  kind: none\n",
		"specs/good.md":   "# Good\n\n## Acceptance criteria\n1. Works.\n",
		"specs/broken.md": "---\nallowance: lots\n---\n# Broken\n\n## Acceptance criteria\n1. Works.\n",
	}
	for p, c := range files {
		if err := os.MkdirAll(filepath.Dir(filepath.Join(ctl, p)), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(filepath.Join(ctl, p), []byte(c), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	gitCmd(t, ctl, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "Approve specs")
	// An uncommitted change, which check and reconcile name.
	if err := os.WriteFile(filepath.Join(ctl, "specs", "good.md"), []byte(files["specs/good.md"]+"2. Also.\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	env := map[string]string{"GITHUB_API_URL": gh.APIURL(), "GITHUB_TOKEN": gh.MainToken(), "GALLIVANT_CACHE": t.TempDir()}
	msgs := map[string]bool{}
	for _, tc := range []struct {
		args []string
		code int
		env  map[string]string
	}{
		{args: []string{"reconcile", "--control", ctl, "--log-format", "json"}, code: 1},
		{args: []string{"reconcile", "--control", ctl, "-v"}, code: 1, env: map[string]string{"GALLIVANT_LOG_FORMAT": "json"}},
		{args: []string{"daemon", "--once", "--control", ctl, "--log-format", "json"}, code: 1},
		{args: []string{"check", ctl, "--log-format", "json"}, code: 1},
		{args: []string{"reconcile", "--control", ctl, "--log-format", "json"}, code: 2, env: map[string]string{"GITHUB_TOKEN": "bogus"}},
		{args: []string{"status", "--control", filepath.Join(t.TempDir(), "missing"), "--log-format", "json"}, code: 2},
	} {
		e := map[string]string{}
		for k, v := range env {
			e[k] = v
		}
		for k, v := range tc.env {
			e[k] = v
		}
		var out, errb bytes.Buffer
		code := run(tc.args, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return e[k] })
		if code != tc.code {
			t.Errorf("%v: exit %d, want %d\n%s", tc.args, code, tc.code, errb.String())
		}
		if errb.Len() == 0 {
			t.Errorf("%v: nothing on standard error", tc.args)
		}
		for i, line := range strings.Split(strings.TrimSuffix(errb.String(), "\n"), "\n") {
			var rec map[string]any
			if err := json.Unmarshal([]byte(line), &rec); err != nil {
				t.Errorf("%v: stderr line %d is not a JSON object: %v\n%s", tc.args, i+1, err, line)
				continue
			}
			for _, k := range []string{"time", "level", "msg"} {
				if _, ok := rec[k]; !ok {
					t.Errorf("%v: stderr line %d has no %q: %s", tc.args, i+1, k, line)
				}
			}
			msg, _ := rec["msg"].(string)
			msgs[msg] = true
			if msg == "problem" && (rec["spec"] == nil || rec["message"] == nil) {
				t.Errorf("a problem record lacks spec or message: %s", line)
			}
			if strings.Contains(line, gh.MainToken()) || strings.Contains(line, "bogus") {
				t.Errorf("a record holds the token: %s", line)
			}
		}
	}
	for _, want := range []string{"problem", "pass summary", "documents have errors", "not seen", "check summary", "uncommitted documents", "command failed", "transition", "waiting"} {
		if !msgs[want] {
			got := []string{}
			for m := range msgs {
				got = append(got, m)
			}
			slices.Sort(got)
			t.Errorf("no record with msg %q; the records were %q", want, got)
		}
	}
}

// Text mode is unchanged: the narration stays prose.
func TestTextLogsStayProse(t *testing.T) {
	t.Parallel()
	var errb bytes.Buffer
	a := &app{io: streams{Err: &errb}, env: func(string) string { return "" }}
	a.narrate(0, "specs/x.md: waiting: for CI", "waiting", "spec", "specs/x.md")
	if got, want := errb.String(), "specs/x.md: waiting: for CI\n"; got != want {
		t.Errorf("text narration = %q, want %q", got, want)
	}
}

// Small things a person trips on (issue 31).
func TestSmallThings(t *testing.T) {
	t.Parallel()
	runIt := func(args []string, env map[string]string) (int, string, string) {
		var out, errb bytes.Buffer
		code := run(args, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return env[k] })
		return code, out.String(), errb.String()
	}
	t.Run("an API URL without a scheme is a usage problem, exit 2", func(t *testing.T) {
		t.Parallel()
		ctl := t.TempDir()
		os.WriteFile(filepath.Join(ctl, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\n"), 0o644)
		gitCmd(t, ctl, "init", "--quiet", "--initial-branch=main")
		gitCmd(t, ctl, "add", "-A")
		gitCmd(t, ctl, "commit", "--quiet", "-m", "c")
		code, _, stderr := runIt([]string{"reconcile", "--control", ctl}, map[string]string{"GITHUB_API_URL": "localhost:1234", "GITHUB_TOKEN": "t", "GALLIVANT_CACHE": t.TempDir()})
		if code != 2 || !strings.Contains(stderr, `the GitHub API URL "localhost:1234/" (GITHUB_API_URL, else github.api_url) is not an http or https URL; expected one like https://api.github.com/`) {
			t.Errorf("exit %d\n%s", code, stderr)
		}
	})
	t.Run("PowerShell completion", func(t *testing.T) {
		t.Parallel()
		code, out, stderr := runIt([]string{"completion", "powershell"}, nil)
		if code != 0 || !strings.Contains(out, "Register-ArgumentCompleter") || !strings.Contains(out, "gallivant") {
			t.Errorf("exit %d\n%s%s", code, out[:min(len(out), 300)], stderr)
		}
	})
	t.Run("the example configuration names its schema", func(t *testing.T) {
		t.Parallel()
		data, err := os.ReadFile(filepath.Join(repoRoot, "docs", "examples", "control", "gallivant.yaml"))
		if err != nil {
			t.Fatal(err)
		}
		first, _, _ := strings.Cut(string(data), "\n")
		if want := "# yaml-language-server: $schema=https://raw.githubusercontent.com/gallivant/gallivant/main/docs/schema/gallivant.schema.json"; first != want {
			t.Errorf("first line %q, want %q", first, want)
		}
	})
}

// A git repository without gallivant.yaml is read with the defaults, and
// said to be so (issue 31: gallivant's own clone listed its testdata specs
// as entries without a word).
func TestNoConfigIsSaid(t *testing.T) {
	t.Parallel()
	ctl := t.TempDir()
	os.MkdirAll(filepath.Join(ctl, "specs"), 0o755)
	os.WriteFile(filepath.Join(ctl, "specs", "a.md"), []byte("# A\n\n## Acceptance criteria\n1. Works.\n"), 0o644)
	gitCmd(t, ctl, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "c")
	var out, errb bytes.Buffer
	code := run([]string{"status", "--control", ctl}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string {
		return map[string]string{"GALLIVANT_CACHE": filepath.Join(ctl, ".cache")}[k]
	})
	if code != 0 || !strings.Contains(errb.String(), "gallivant.yaml: warning: the control repository has no gallivant.yaml at ") ||
		!strings.Contains(errb.String(), "name one with --control (gallivant init creates one)") {
		t.Errorf("exit %d\n%s", code, errb.String())
	}
	os.WriteFile(filepath.Join(ctl, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\n"), 0o644)
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "config")
	errb.Reset()
	run([]string{"status", "--control", ctl}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string {
		return map[string]string{"GALLIVANT_CACHE": filepath.Join(ctl, ".cache")}[k]
	})
	if strings.Contains(errb.String(), "warning") {
		t.Errorf("a control repository with gallivant.yaml is warned about:\n%s", errb.String())
	}
}
