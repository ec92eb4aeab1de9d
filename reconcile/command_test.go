package reconcile

import (
	"context"
	"errors"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/google/go-github/v66/github"
)

// answers returns gallivant's answers to commands among the comments of
// pull request 1.
func (r *rig) answers() []string {
	var out []string
	for _, b := range r.as("alice").comments(1) {
		if strings.Contains(b, "<!-- gallivant:command-") {
			out = append(out, b)
		}
	}
	return out
}

// Steering from the pull request (issue 34, docs/requests.md): a writer's
// `/gallivant resume | …` on a stopped entry becomes one `loop: request`
// control commit naming the comment, then one answer; a pass killed
// between the commit and the answer neither loses nor repeats it; an edit
// of the acted comment, a read-only login's command and a quoted one are
// ignored without a commit; a malformed command is answered once with its
// position.
func TestPullRequestCommands(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	if _, err := r.gh.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	r.pass()
	r.as("alice").close(1)
	wantSubjects(t, r.pass(), "loop: stop closed")

	r.as("mallory").comment(1, "/gallivant resume | reopen it for me")
	r.as("bob").comment(1, "> /gallivant resume | quoted, not asked\nno command here")
	rep := r.pass()
	wantSubjects(t, rep)
	if note := noteOf(rep); !strings.Contains(note, "ignored the command in comment") || !strings.Contains(note, "@mallory") {
		t.Errorf("the pass report does not name the ignored command:\n%s", note)
	}
	if got := r.answers(); len(got) != 0 {
		t.Fatalf("answers to people who did not ask or may not steer: %q", got)
	}

	r.as("bob").comment(1, "/gallivant resume | the close was a mistake")
	_, err := r.reconciler(func(o *Options) {
		o.Crash = func(point string) error {
			if point == "push:after" && strings.Contains(strings.Join(r.subjects(), "\n"), "loop: request resume") {
				return errInjected
			}
			return nil
		}
	}).Pass(context.Background())
	if !errors.Is(err, errInjected) {
		t.Fatalf("pass: %v, want the injected kill after the push", err)
	}
	msg := run(t, r.control, "git", "log", "-1", "--format=%B", "--grep=^loop: request resume", "main")
	if !strings.HasPrefix(msg, "loop: request resume from acme/api#1 by @bob\n") || !strings.Contains(msg, "Gallivant-Comment-Id: ") ||
		!strings.Contains(msg, "Gallivant-Comment: https://") || !strings.Contains(msg, "Gallivant-Request: resume | the close was a mistake") {
		t.Fatalf("the request commit:\n%s", msg)
	}
	if got := r.answers(); len(got) != 0 {
		t.Fatalf("answered before the kill: %q", got)
	}

	rep = r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: reopen acme/api#1" || strings.Contains(strings.Join(got, "\n"), "loop: request") {
		t.Fatalf("after the kill: %v, want the reopen and no second request (%s)", got, noteOf(rep))
	}
	if got := r.answers(); len(got) != 1 || !strings.Contains(got[0], "Done: `loop: request resume from acme/api#1 by @bob`") {
		t.Fatalf("answers %q, want one saying it was done", got)
	}
	if !r.ledger(ledgerPath).Delivery.Stop.IsZero() {
		t.Errorf("the stop is still there")
	}

	// An edit of the acted comment is ignored.
	id := r.commentID(1, "/gallivant resume | the close was a mistake")
	if _, _, err := r.gh.Client("bob").Issues.EditComment(context.Background(), "acme", "api", id, &github.IssueComment{Body: github.String("/gallivant rows +5 | edited")}); err != nil {
		t.Fatal(err)
	}
	r.as("bob").comment(1, "/gallivant retry two | typo")
	wantSubjects(t, r.pass())
	got := r.answers()
	if len(got) != 2 || !strings.Contains(got[1], "Malformed: line 1, column 12: malformed retry") {
		t.Fatalf("answers %q, want the malformed command answered with its position", got)
	}
	wantSubjects(t, r.pass())
	if n := len(r.answers()); n != 2 {
		t.Errorf("%d answers after an idle pass, want still 2", n)
	}
	if n := strings.Count(strings.Join(r.subjects(), "\n"), "loop: request"); n != 1 {
		t.Errorf("%d request commits, want 1", n)
	}
}

// commentID finds the id of pull request n's comment with body.
func (r *rig) commentID(n int, body string) int64 {
	r.t.Helper()
	return r.commentIDIn("acme/api", n, body)
}

// commentIDIn is commentID on pull request n of repo.
func (r *rig) commentIDIn(repo string, n int, body string) int64 {
	r.t.Helper()
	owner, name, _ := strings.Cut(repo, "/")
	cs, _, err := r.gh.Client("alice").Issues.ListComments(context.Background(), owner, name, n, &github.IssueListCommentsOptions{ListOptions: github.ListOptions{PerPage: 100}})
	if err != nil {
		r.t.Fatal(err)
	}
	for _, c := range cs {
		if c.GetBody() == body {
			return c.GetID()
		}
	}
	r.t.Fatalf("no comment %q", body)
	return 0
}

// A writer's flood of commands is answered eight per pass (maxCommands),
// each once.
func TestPullRequestCommandsAreBoundedPerPass(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	r.pass()
	for i := 0; i < maxCommands+1; i++ {
		r.as("bob").comment(1, "/gallivant retry x | "+strconv.Itoa(i))
	}
	rep := r.pass()
	wantSubjects(t, rep)
	if n := len(r.answers()); n != maxCommands {
		t.Fatalf("%d answers after the first pass, want %d (%s)", n, maxCommands, noteOf(rep))
	}
	r.pass()
	r.pass()
	if n := len(r.answers()); n != maxCommands+1 {
		t.Errorf("%d answers after three passes, want %d", n, maxCommands+1)
	}
}
