package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-github/v66/github"
)

// `/gallivant pause` and `/gallivant unpause` from the pull request
// (issue 34, docs/requests.md): a writer's pause is one `loop: request
// pause` control commit; while it holds, a failing check starts no agent
// and the pull request is left as it is; status and why say who paused it
// from where; unpause is one more control commit and the fix round
// starts in the same pass. verify replays both commits.
func TestPullRequestPauseAndUnpause(t *testing.T) {
	t.Parallel()
	r := newDelivery(t, rigConfig)
	r.pass()
	r.as("bob").comment(1, "/gallivant pause | hold it for the API freeze")
	r.as("ci-bot").status(r.head(work), "ci", "failure")
	runs := len(r.runs)
	head, labels := r.head(work), r.as("alice").labels(1)

	rep := r.pass()
	wantSubjects(t, rep, "loop: request pause from acme/api#1 by @bob")
	if note := noteOf(rep); !strings.Contains(note, "paused by @bob from acme/api#1: no dispatch and no review round") {
		t.Errorf("the pass report does not say the entry is paused:\n%s", note)
	}
	wantSubjects(t, r.pass())
	if n := len(r.runs); n != runs {
		t.Fatalf("%d agents ran while paused", n-runs)
	}
	got := r.answers()
	if len(got) != 1 || !strings.Contains(got[0], "Done: `loop: request pause from acme/api#1 by @bob`. @bob asked on acme/api#1: Paused:") {
		t.Fatalf("answers %q, want one saying it paused", got)
	}
	if r.head(work) != head {
		t.Errorf("the work branch moved while paused")
	}
	if diff := cmp.Diff(labels, r.as("alice").labels(1)); diff != "" {
		t.Errorf("labels changed while paused (-before +after):\n%s", diff)
	}
	if n := len(r.as("alice").comments(1)); n != 2 {
		t.Errorf("%d comments on the pull request, want the command and its answer", n)
	}

	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	snap, err := Load(context.Background(), st)
	if err != nil {
		t.Fatal(err)
	}
	if es := snap.Status("specs/feature.md"); es.Paused != "paused by @bob from acme/api#1" {
		t.Errorf("status paused = %q", es.Paused)
	}
	if why := strings.Join(snap.Explain("specs/feature.md"), "\n"); !strings.Contains(why, "paused by @bob from acme/api#1\nnext: nothing until `/gallivant unpause` on acme/api#1") {
		t.Errorf("gallivant why does not say who paused it:\n%s", why)
	}

	r.as("bob").comment(1, "/gallivant pause")
	r.as("bob").comment(1, "/gallivant unpause | the freeze is over")
	rep = r.pass()
	wantSubjects(t, rep, "loop: request unpause from acme/api#1 by @bob",
		"loop: round 1 acme/api#1", "loop: pushed round 1 acme/api#1", "loop: announced round 1 acme/api#1")
	if n := len(r.runs); n != runs+1 {
		t.Errorf("%d agents ran after unpause, want 1", n-runs)
	}
	got = r.answers()
	if len(got) != 3 || !strings.Contains(got[1], "Not accepted now: the entry is already paused by @bob from acme/api#1.") ||
		!strings.Contains(got[2], "Unpaused (it was paused by @bob from acme/api#1)") {
		t.Fatalf("answers %q, want the second pause refused and the unpause done", got)
	}
	// Each answered command carries gallivant's reaction, seen through
	// GitHub's reactions API: +1 when done, confused when refused.
	for _, tc := range []struct{ body, want string }{
		{"/gallivant pause | hold it for the API freeze", "+1"},
		{"/gallivant pause", "confused"},
		{"/gallivant unpause | the freeze is over", "+1"},
	} {
		if diff := cmp.Diff([]string{ghstandin.DefaultLogin + " " + tc.want}, r.reactions(tc.body)); diff != "" {
			t.Errorf("reactions to %q (-want +got):\n%s", tc.body, diff)
		}
	}
	verifyControl(t, r)
}

// reactions lists "<login> <content>" of the reactions to pull request
// 1's comment with body.
func (r *rig) reactions(body string) []string {
	r.t.Helper()
	rs, _, err := r.gh.Client("alice").Reactions.ListIssueCommentReactions(context.Background(), "acme", "api", r.commentID(1, body), &github.ListOptions{})
	if err != nil {
		r.t.Fatal(err)
	}
	var out []string
	for _, x := range rs {
		out = append(out, x.GetUser().GetLogin()+" "+x.GetContent())
	}
	return out
}

func TestCommandReaction(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		step gatekeep.CommandStep
		want githubapi.Reaction
		ok   bool
	}{
		{gatekeep.CommandApply, githubapi.ReactionDone, true},
		{gatekeep.CommandAnswer, githubapi.ReactionDone, true},
		{gatekeep.CommandRefuse, githubapi.ReactionRefused, true},
		{gatekeep.CommandIgnore, "", false},
		{gatekeep.CommandNone, "", false},
	} {
		got, ok := commandReaction(tc.step)
		if got != tc.want || ok != tc.ok {
			t.Errorf("commandReaction(%s) = %q, %v; want %q, %v", tc.step, got, ok, tc.want, tc.ok)
		}
	}
}
