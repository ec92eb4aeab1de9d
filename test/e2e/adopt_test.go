package e2e

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// adoptAgent runs agentScript for the rows; its seed closes on baseline
// every row whose file the checkout already holds, as a person's pull
// request may, and a review round commits one fix.
const adoptAgent = `#!/bin/sh
set -eu
get() { sed -n "s/^$1: //p" "$GALLIVANT_TASK" | head -n 1; }
target=$(get target)
if [ "$target" = round ]; then
  echo "zero" > zero-case.txt
  git add -A
  git commit --quiet -m "Cover the zero case"
  exit 0
fi
if [ "$target" = seed ]; then
  pending=$(get pending); iteration=$(get iteration)
  body=""; k=0; closed=0; first=""
  for n in $(sed -n 's/^- row \([0-9]*\): .*/\1/p' "$GALLIVANT_TASK"); do
    k=$((k + 1))
    if [ -f "row-$n.txt" ]; then
      body="$body| $n | done | 0 | test -f row-$n.txt; ok |
"
      closed=$((closed + 1))
      continue
    fi
    body="$body| $n | open | 0 | test -f row-$n.txt; FAIL: missing |
"
    [ -n "$first" ] || first="row $n"
  done
  [ -n "$first" ] || first=none
  printf 'loop: seed evidence\n\npending: %s\niteration: %s\n\n%s\nrow 0 done | seeded %s rows, closed %s on baseline | %s\n' "$pending" "$((iteration + 1))" "$body" "$k" "$closed" "$first" | git commit --quiet --allow-empty -F -
  exit 0
fi
exec sh "$AGENT_REAL"
`

// bobsNotes is the body bob wrote on his pull request.
const bobsNotes = "Bob's notes: keep the login API stable.\n\nCloses #12."

// adoptWorld is a sandbox with writers bob and carol, acme/api and a
// control repository, whose agent is adoptAgent wrapping the crash
// suite's; config is the control repository's gallivant.yaml for it.
func adoptWorld(t *testing.T, author string) (dir string, sb map[string]string, w *cacheWorld, config string) {
	t.Helper()
	dir = t.TempDir()
	real, agent := filepath.Join(dir, "agent.sh"), filepath.Join(dir, "adopt-agent.sh")
	for path, s := range map[string]string{real: agentScript, agent: adoptAgent} {
		if err := os.WriteFile(path, []byte(s), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	sb = startSandboxUsers(t, filepath.Join(dir, "sandbox"), 1000000, []string{"bob", "carol"}, "acme/api", "acme/control")
	w = &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
	w.env = append(worldEnv(sb, w.cache, agent, filepath.Join(dir, "runs.log"), author), "AGENT_REAL="+real)
	return dir, sb, w, strings.Replace(cacheConfig, "env: [PATH, HOME, AGENT,", "env: [PATH, HOME, AGENT, AGENT_REAL,", 1)
}

// A person's pull request named by a spec's `pr:` (issue 34, docs/delivery.md
// "Adopting a pull request"), against the built binary and `gallivant
// sandbox`: bob, a writer, opens acme/api#1 from his branch feature/login
// with row 1 already done; the spec names it. gallivant adopts it — the row
// bob's work satisfies closes on baseline, rows 2 and 3 are worked on bob's
// branch on top of his commit, no branch or pull request of its own — writes
// its identity block and receipt into the body keeping bob's text, labels it
// ready, answers carol's review comment with a round pushed to the same
// branch, labels it ready again, and `gallivant verify` proves the history.
func TestAdoptedPullRequestFromAPerson(t *testing.T) {
	t.Parallel()
	dir, sb, w, config := adoptWorld(t, "adopt-test")

	// bob's branch and pull request, made with his own token.
	bobDir := filepath.Join(dir, "bob")
	gitIn(t, dir, "clone", "--quiet", withToken(sb["GIT_URL_ACME_API"], sb["GITHUB_TOKEN_BOB"]), bobDir)
	gitIn(t, bobDir, "checkout", "--quiet", "-b", "feature/login")
	if err := os.WriteFile(filepath.Join(bobDir, "row-1.txt"), []byte("bob wrote this\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	gitIn(t, bobDir, "add", "-A")
	gitIn(t, bobDir, "commit", "--quiet", "-m", "Start the login page")
	gitIn(t, bobDir, "push", "--quiet", "origin", "feature/login")
	bobsHead := gitIn(t, bobDir, "rev-parse", "HEAD")
	var pr struct{ Number int }
	w.as("bob").send("POST", "repos/acme/api/pulls", map[string]any{"title": "Login page", "head": "feature/login", "base": "main", "body": bobsNotes}, &pr)
	if pr.Number != 1 {
		t.Fatalf("bob's pull request is #%d, want #1", pr.Number)
	}

	src := filepath.Join(dir, "src")
	gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
	controlEdit(t, src, map[string]string{"gallivant.yaml": config,
		"specs/feature.md": "---\npr: acme/api#1\n---\n# Feature\n\n## Acceptance criteria\n1. Feature one.\n2. Feature two.\n3. Feature three.\n"})
	first := w.pass()
	var subjects []string
	for _, tr := range first.Transitions {
		subjects = append(subjects, tr.Subject)
	}
	if len(subjects) == 0 || subjects[0] != "loop: adopt acme/api#1" {
		t.Fatalf("the first pass did not begin with the adoption: %q", subjects)
	}
	if slices.Contains(subjects, "loop: dispatch row 1") {
		t.Errorf("row 1, which bob's branch satisfies, was dispatched: %q", subjects)
	}
	for _, s := range []string{"loop: dispatch row 2", "loop: dispatch row 3", "loop: open pr acme/api#1"} {
		if !slices.Contains(subjects, s) {
			t.Errorf("the first pass lacks %q: %q", s, subjects)
		}
	}
	w.settle()
	if !w.did("specs/feature.md", "loop: ready acme/api#1") {
		t.Fatalf("the adopted pull request is not ready: %v", w.performed)
	}

	// Worked on bob's branch, on top of his commit, never force-pushed;
	// no branch and no pull request of gallivant's own.
	gitIn(t, bobDir, "fetch", "--quiet", "origin")
	head := gitIn(t, bobDir, "rev-parse", "origin/feature/login")
	gitIn(t, bobDir, "merge-base", "--is-ancestor", bobsHead, head)
	for _, f := range []string{"row-1.txt", "row-2.txt", "row-3.txt"} {
		gitIn(t, bobDir, "cat-file", "-e", head+":"+f)
	}
	if got := gitIn(t, dir, "ls-remote", sb["GIT_URL_ACME_API"], "refs/heads/gallivant/*"); got != "" {
		t.Errorf("gallivant made a branch of its own: %s", got)
	}
	if code := w.statusOf("GET", "repos/acme/api/pulls/2", nil); code != 404 {
		t.Errorf("GET acme/api#2: %d, want 404: gallivant opened a pull request of its own", code)
	}
	_, body := w.pull(1)
	if !strings.HasPrefix(body, bobsNotes) {
		t.Errorf("bob's text is not kept at the top of the body:\n%s", body)
	}
	for _, want := range []string{`<!-- gallivant:identity {"control":`, `"spec":"specs/feature.md"`, "<!-- gallivant:receipt -->", "| 1 | done |", "| 3 | done |"} {
		if !strings.Contains(body, want) {
			t.Errorf("the body lacks %q:\n%s", want, body)
		}
	}

	// carol, a writer, asks for a change: a round on bob's branch, then
	// ready again.
	var c struct{ ID int64 }
	w.as("carol").send("POST", "repos/acme/api/issues/1/comments", map[string]string{"body": "Please also cover the zero case."}, &c)
	w.settle()
	for _, s := range []string{"loop: unready acme/api#1", "loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1"} {
		if !w.did("specs/feature.md", s) {
			t.Fatalf("no %q after carol's comment: %v", s, w.performed)
		}
	}
	pushed := slices.Index(w.performed, "specs/feature.md loop: pushed round 1 acme/api#1")
	if !slices.Contains(w.performed[pushed:], "specs/feature.md loop: ready acme/api#1") || !slices.Contains(w.labels("acme/api", 1), "ready-for-human") {
		t.Errorf("not labelled ready again after the round: %v, labels %v", w.performed[pushed:], w.labels("acme/api", 1))
	}
	gitIn(t, bobDir, "fetch", "--quiet", "origin")
	round := gitIn(t, bobDir, "rev-parse", "origin/feature/login")
	gitIn(t, bobDir, "merge-base", "--is-ancestor", head, round)
	gitIn(t, bobDir, "cat-file", "-e", round+":zero-case.txt")
	if _, body := w.pull(1); !strings.HasPrefix(body, bobsNotes) {
		t.Errorf("bob's text is gone after the round:\n%s", body)
	}
	w.verifies()
}
