package main

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// gv runs the CLI in-process with a private cache and no GitHub
// environment.
func gv(t testing.TB, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	cache := t.TempDir()
	env := map[string]string{"GALLIVANT_CACHE": cache}
	code = run(args, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return env[k] })
	return code, out.String(), errb.String()
}

// keptDemo runs the demo with --keep (and args) and checks what --keep
// promises: the control repository and the GitHub state are kept, and a
// second demo refuses the directory that holds one. It returns the kept
// bare control repository.
//
// The demo runs as a process of its own (this test binary): its Verify
// commands' runs end by killing every child of the process in another
// session (internal/agent's reaper), which in this process would be a
// parallel test's (the pty of TestProgressLiveAtTerminal).
func keptDemo(t *testing.T, args ...string) string {
	t.Helper()
	dir := t.TempDir()
	argv := append([]string{"demo", "--keep", dir}, args...)
	if code, _, stderr := gvProcess(t, argv...); code != 0 {
		t.Fatalf("%s: exit %d: %s", strings.Join(argv, " "), code, stderr)
	}
	for _, kept := range []string{"control.git", filepath.Join("github", "state.json")} {
		if _, err := os.Stat(filepath.Join(dir, kept)); err != nil {
			t.Errorf("--keep did not keep %s: %v", kept, err)
		}
	}
	if code, _, stderr := gvProcess(t, argv...); code != 1 || !strings.Contains(stderr, "already holds a demo") {
		t.Errorf("a second %s: exit %d, %q; want exit 1 saying the directory already holds a demo", strings.Join(argv, " "), code, stderr)
	}
	return filepath.Join(dir, "control.git")
}

// demoSubjectsParse checks that every `loop:` subject of a demo's control
// history is in the vocabulary and renders back byte for byte, and that a
// leg's transition names its leg in a coordinated history.
func demoSubjectsParse(t *testing.T, bare string) {
	t.Helper()
	kinds := map[ledger.Kind]int{}
	for _, subject := range strings.Split(gitIn(t, "", "--git-dir", bare, "log", "--format=%s", "main"), "\n") {
		if !ledger.LoopAuthored(subject) {
			continue
		}
		s, err := ledger.ParseSubject(subject)
		if err != nil {
			t.Errorf("demo history: %v", err)
			continue
		}
		if got := s.String(); got != subject {
			t.Errorf("ParseSubject(%q).String() = %q", subject, got)
		}
		kinds[s.Kind]++
	}
	if len(kinds) < 5 {
		t.Errorf("the demo's history has %d kinds of transition (%v); want at least 5", len(kinds), kinds)
	}
}

func gitIn(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1",
		"GIT_AUTHOR_NAME=Mallory Person", "GIT_AUTHOR_EMAIL=mallory@example.com",
		"GIT_COMMITTER_NAME=Mallory Person", "GIT_COMMITTER_EMAIL=mallory@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

// checkProcess runs `gallivant check` as a process in dir and returns its
// exit status and standard output.
func checkProcess(t *testing.T, dir string) (int, string) {
	t.Helper()
	code, stdout, _ := gvIn(t, dir, "check")
	return code, stdout
}

// gvProcess runs gallivant (this test binary) as a process of its own with
// a private cache and no GitHub environment, as gv does in process.
func gvProcess(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	return gvIn(t, "", args...)
}

// gvIn is gvProcess in the working directory dir.
func gvIn(t *testing.T, dir string, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	cmd := exec.Command(gallivantBinary(t), args...)
	cmd.Dir = dir
	// HOME and TMPDIR for the demo's Verify commands (`go test`, with Go's
	// default build cache under HOME).
	cmd.Env = append([]string{"PATH=" + os.Getenv("PATH"), "HOME=" + os.Getenv("HOME"), "TMPDIR=" + os.TempDir(),
		"GALLIVANT_CACHE=" + t.TempDir(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1"}, gitEnv...)
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	err := cmd.Run()
	var exit *exec.ExitError
	if err != nil && !errors.As(err, &exit) {
		t.Fatalf("gallivant %s: %v", strings.Join(args, " "), err)
	}
	return cmd.ProcessState.ExitCode(), out.String(), errb.String()
}

// verifyJSONOut runs verify --format json and decodes it.
func verifyJSONOut(t *testing.T, args ...string) (int, verifyJSON) {
	t.Helper()
	code, stdout, stderr := gv(t, append([]string{"verify", "--format", "json"}, args...)...)
	var got verifyJSON
	if err := json.Unmarshal([]byte(stdout), &got); err != nil {
		t.Fatalf("verify %v: exit %d, %v\nstdout: %s\nstderr: %s", args, code, err, stdout, stderr)
	}
	return code, got
}

// TestVerifyDemoHistory: the demo's control repository verifies clean; then
// a person's forgeries, each in its own commit, are each reported at that
// commit and section, while a person's request line and spec edit pass.
func TestVerifyDemoHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the demo")
	}
	bare := keptDemo(t)
	url := "file://" + bare
	// The kept history is the demo's: the retried row, both pull requests
	// done, and the second milestone's seed names its chain.
	subjects := gitIn(t, "", "--git-dir", bare, "log", "--format=%s", "main")
	if !strings.Contains(subjects, "loop: record home row 2") || strings.Count(subjects, "loop: done acme/shop#") != 2 {
		t.Errorf("the kept control history lacks the retried row or a done pull request:\n%s", subjects)
	}
	seed := gitIn(t, "", "--git-dir", bare, "log", "-1", "--format=%B", "--grep=^loop: seed ledger$", "main")
	if !strings.Contains(seed, "\nGallivant-Chain: checkout-launch 2/2") {
		t.Errorf("the last seed does not name its chain milestone:\n%s", seed)
	}

	code, clean := verifyJSONOut(t, "--control", url)
	if code != 0 || !clean.Legal || len(clean.Violations) != 0 {
		t.Fatalf("the demo's history does not verify: exit %d, %+v", code, clean.Violations)
	}
	for _, k := range []string{"seed ledger", "dispatch", "record", "escalate", "stop", "retry", "verify", "open pr", "round", "pushed round", "ready", "announced", "done"} {
		if clean.Transitions[k] == 0 {
			t.Errorf("the demo's history shows no %q transition: %v", k, clean.Transitions)
		}
	}
	demoSubjectsParse(t, bare)
	base := gitIn(t, "", "--git-dir", bare, "rev-parse", "main")

	work := filepath.Join(t.TempDir(), "work")
	gitIn(t, "", "clone", "--quiet", bare, work)
	const checkout = "plans/checkout-ledger.md"
	const receipts = "plans/receipts-ledger.md"
	commit := func(path, old, new, message string) string {
		t.Helper()
		p := filepath.Join(work, path)
		b, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), old) {
			t.Fatalf("%s lacks %q", path, old)
		}
		if err := os.WriteFile(p, []byte(strings.Replace(string(b), old, new, 1)), 0o644); err != nil {
			t.Fatal(err)
		}
		gitIn(t, work, "commit", "--quiet", "-am", message)
		return gitIn(t, work, "rev-parse", "HEAD")
	}
	type at struct{ Commit, Path, Section string }
	var want []at
	forge := func(path, old, new, message, section string) {
		want = append(want, at{commit(path, old, new, message), path, section})
	}
	forge(checkout, "| 3 | cut | 0 |", "| 3 | done | 0 |", "Row 3 is done really", audit.SectionRows)
	forge(checkout, "| 2 | done | 3 |", "| 2 | done | 1 |", "Fewer attempts", audit.SectionRows)
	forge(checkout, "allowance: 2\n", "allowance: 40\n", "More allowance", audit.SectionHeader)
	forge(checkout, "row 2 failed | attempt 1 did not get there", "row 2 done | attempt 1 did not get there", "Nicer history", audit.SectionDecisions)
	forge(checkout, "row 2 escalated | implModel round | allowed attempts 2\n", "", "No escalation", audit.SectionDecisions)
	forge(checkout, "round: 1\n", "round: 0\n", "No rounds", audit.SectionDelivery)
	// A loop: subject on a commit that does something else.
	forge(receipts, "allowance: 2\n", "allowance: 9\n", "loop: nudge acme/shop#2\n\nNudged.\n\nGallivant-Spec: specs/receipts.md\nGallivant-PR: acme/shop#2", audit.SectionHeader)
	// Legitimate: a request line and a spec edit.
	commit(receipts, "## Requests\n", "## Requests\nresume | looks fine to me\n", "Ask to resume")
	commit("specs/receipts.md", "# ", "# Printed ", "Retitle the receipts spec")
	// A well-formed stop written by hand as the reconciler would (legal),
	// then a person removes it.
	b, err := os.ReadFile(filepath.Join(work, receipts))
	if err != nil {
		t.Fatal(err)
	}
	l, ds := ledger.Parse(receipts, b)
	if ledger.Fatal(ds) {
		t.Fatal(ds)
	}
	stopped, sc := ledger.Stop(l, ledger.StopNeeds, "row 1 needs a printer", 1)
	if err := os.WriteFile(filepath.Join(work, receipts), ledger.Format(stopped), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, work, "commit", "--quiet", "-am", sc.Message(ledger.Trailer{Key: ledger.TrailerSpec, Value: "specs/receipts.md"}))
	forge(receipts, "stop: needs | row 1 needs a printer\n", "", "Unstop", audit.SectionDelivery)
	// A transition subject on a commit that changes no ledger.
	want = append(want, at{commit("specs/checkout.md", "# ", "# The ", "loop: record home row 1"), "", audit.SectionFiles})
	gitIn(t, work, "push", "--quiet", "origin", "HEAD:main")

	code, got := verifyJSONOut(t, "--control", url)
	if code != 1 || got.Legal {
		t.Fatalf("forged history: exit %d, legal %v", code, got.Legal)
	}
	var have []at
	for _, v := range got.Violations {
		have = append(have, at{v.Commit, v.Path, v.Section})
		if v.Author != "Mallory Person <mallory@example.com>" || v.Message == "" {
			t.Errorf("violation lacks its author or message: %+v", v)
		}
	}
	sortAt := func(s []at) {
		sort.Slice(s, func(i, j int) bool { return s[i].Commit+s[i].Section < s[j].Commit+s[j].Section })
	}
	sortAt(want)
	sortAt(have)
	if diff := cmp.Diff(want, have); diff != "" {
		t.Errorf("violations (-want +got):\n%s", diff)
	}
	if got.Violations[0].Excerpt == "" {
		t.Errorf("the first violation has no excerpt: %+v", got.Violations[0])
	}

	t.Run("check", func(t *testing.T) {
		// The forged ledgers differ from what their last loop: commits wrote.
		// check reads the working directory, so it runs as a process of its
		// own there: this test is parallel, and runIn's chdir is the whole
		// process's.
		code, stdout := checkProcess(t, work)
		if code != 1 || !strings.Contains(stdout, "plans/checkout-ledger.md:1:1: error: ledger/hand-edit: the reconciler-owned header section differs from what ") ||
			!strings.Contains(stdout, "-allowance: 2 +allowance: 40") {
			t.Errorf("check: exit %d:\n%s", code, stdout)
		}
	})
	t.Run("since", func(t *testing.T) {
		code, since := verifyJSONOut(t, "--control", url, "--since", base)
		if code != 1 || since.Commits != 12 || len(since.Violations) != len(want) {
			t.Errorf("--since %s: exit %d, %d commits, %d violations; want 1, 12, %d", base[:7], code, since.Commits, len(since.Violations), len(want))
		}
		head := gitIn(t, "", "--git-dir", bare, "rev-parse", "main")
		code, none := verifyJSONOut(t, "--control", url, "--since", head)
		if code != 0 || none.Commits != 0 {
			t.Errorf("--since the head: exit %d, %d commits; want 0, 0", code, none.Commits)
		}
		if code, all := verifyJSONOut(t, "--control", url, "--since", strings.Repeat("0", 40)); code != 1 || all.Commits != 47 {
			t.Errorf("--since 000…0: exit %d, %d commits; want 1 and the whole history, 47", code, all.Commits)
		}
		if code, _, stderr := gv(t, "verify", "--control", url, "--since", "no-such-rev"); code != 2 || !strings.Contains(stderr, "unknown revision") {
			t.Errorf("--since no-such-rev: exit %d, %s; want 2 and unknown revision", code, stderr)
		}
	})
	t.Run("spec", func(t *testing.T) {
		_, only := verifyJSONOut(t, "--control", url, "specs/receipts.md")
		for _, v := range only.Violations {
			if v.Path != receipts && v.Path != "" {
				t.Errorf("verify specs/receipts.md reported %s", v.Path)
			}
		}
		// The receipts ledger's two, and the loop: commit that changes no ledger.
		if len(only.Violations) != 3 {
			t.Errorf("verify specs/receipts.md: %d violations, want 3", len(only.Violations))
		}
	})
	t.Run("text and github", func(t *testing.T) {
		code, stdout, _ := gv(t, "verify", "--control", url)
		lines := strings.Split(strings.TrimSpace(stdout), "\n")
		if code != 1 || !strings.HasPrefix(lines[len(lines)-1], "verified 47 commits: ") || !strings.HasSuffix(lines[len(lines)-1], ", 9 violations") {
			t.Errorf("text: exit %d, summary %q", code, lines[len(lines)-1])
		}
		if !strings.Contains(stdout, "plans/checkout-ledger.md: header: a person changed the reconciler-owned header section") || !strings.Contains(stdout, "\n    +allowance: 40\n") {
			t.Errorf("text output lacks the allowance forgery and its excerpt:\n%s", stdout)
		}
		_, stdout, _ = gv(t, "verify", "--control", url, "--format", "github")
		if n := strings.Count(stdout, "::error file=plans/checkout-ledger.md,title=verify/"); n != 6 {
			t.Errorf("github: %d annotations on the checkout ledger, want 6:\n%s", n, stdout)
		}
	})
	t.Run("log", func(t *testing.T) {
		code, stdout, _ := gv(t, "log", "--control", url, "receipts", "--verify")
		if code != 1 || !strings.Contains(stdout, "loop: seed ledger  [") || !strings.Contains(stdout, "  verified\n") {
			t.Errorf("log --verify: exit %d:\n%s", code, stdout)
		}
		if !strings.Contains(stdout, "loop: nudge acme/shop#2  [Control=") && !strings.Contains(stdout, "NOT VERIFIED: header: ") {
			t.Errorf("log --verify does not mark the forged nudge:\n%s", stdout)
		}
		if !strings.Contains(stdout, "Unstop") || strings.Contains(stdout, "Ask to resume") {
			t.Errorf("log --verify shows a person's hand edit and only that:\n%s", stdout)
		}
	})
	t.Run("accept", func(t *testing.T) {
		// The reconciler stops the forged checkout entry tampered, a person
		// accepts, the reconciler records it: the checkout ledger's hand
		// edits are then accepted, not failing.
		lp := filepath.Join(work, checkout)
		transition := func(n *ledger.Ledger, c ledger.Commit) {
			t.Helper()
			if err := os.WriteFile(lp, ledger.Format(n), 0o644); err != nil {
				t.Fatal(err)
			}
			gitIn(t, work, "commit", "--quiet", "-am", c.Message(ledger.Trailer{Key: ledger.TrailerSpec, Value: "specs/checkout.md"}))
		}
		read := func() *ledger.Ledger {
			b, _ := os.ReadFile(lp)
			l, ds := ledger.Parse(checkout, b)
			if ledger.Fatal(ds) {
				t.Fatal(ds)
			}
			return l
		}
		transition(ledger.Stop(read(), ledger.StopTampered, "a person changed the rows", 0))
		commit(checkout, "## Requests\n", "## Requests\naccept | we mean it\n", "Accept the edits")
		r, _ := ledger.ParseRequest("accept | we mean it")
		n, c, err := ledger.ApplyRequest(read(), r, time.Time{})
		if err != nil {
			t.Fatal(err)
		}
		transition(n, c)
		gitIn(t, work, "push", "--quiet", "origin", "HEAD:main")
		code, stdout, _ := gv(t, "log", "--control", url, "checkout", "--verify")
		if code != 0 || !strings.Contains(stdout, "NOT VERIFIED: accepted later: rows: ") || !strings.Contains(stdout, "loop: accept  [") {
			t.Errorf("log --verify after accept: exit %d:\n%s", code, stdout)
		}
		_, all := verifyJSONOut(t, "--control", url)
		if len(all.Accepted) != 6 {
			t.Errorf("%d accepted hand edits, want the checkout ledger's 6: %+v", len(all.Accepted), all.Accepted)
		}
	})
}

// Issue 17 with issue 18: a coordinated delivery's per-leg transitions are
// replayed on the leg's view, so the two-leg demo's history verifies clean.
func TestVerifyCoordinatedDemoHistory(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("runs the demo")
	}
	bare := keptDemo(t, "--coordinated")
	ledgerText := gitIn(t, "", "--git-dir", bare, "show", "main:plans/audit-ledger.md")
	for _, want := range []string{"phase: done", "pr api: acme/api#1", "pr web: acme/web#1", "round web: 1"} {
		if !regexp.MustCompile(`(?m)^` + regexp.QuoteMeta(want) + `$`).MatchString(ledgerText) {
			t.Errorf("the kept coordinated ledger lacks the line %q:\n%s", want, ledgerText)
		}
	}
	code, clean := verifyJSONOut(t, "--control", "file://"+bare)
	if code != 0 || !clean.Legal || len(clean.Violations) != 0 {
		t.Fatalf("the coordinated demo's history does not verify: exit %d, %+v", code, clean.Violations)
	}
	demoSubjectsParse(t, bare)
	for _, k := range []string{"open pr", "round", "pushed round", "ready", "done", "verify"} {
		if clean.Transitions[k] == 0 {
			t.Errorf("the coordinated demo's history shows no %q transition: %v", k, clean.Transitions)
		}
	}
}
