package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// legAnswers returns the bodies of the comments on acme/web#1 that
// answer commands.
func legAnswers(r *rig) []string {
	r.t.Helper()
	var out []string
	cs, _, err := r.gh.Client("alice").Issues.ListComments(contextBG(), "acme", "web", 1, nil)
	if err != nil {
		r.t.Fatal(err)
	}
	for _, c := range cs {
		if strings.Contains(c.GetBody(), "<!-- gallivant:command-") {
			out = append(out, c.GetBody())
		}
	}
	return out
}

// A command on a coordinated spec's leg pull request (docs/requests.md)
// is a request on the whole entry: bob's `/gallivant pause | …` on the
// web leg's pull request becomes `loop: request pause from acme/web#1 by
// @bob` and pauses the entry, his unpause there lets it go on, gallivant
// answers each once on that pull request and nothing on the api leg's, a
// read-only login's command there is ignored, and `gallivant verify`
// replays both commits against the leg's pull request.
func TestLegsCommandOnALegPullRequest(t *testing.T) {
	t.Parallel()
	r := newLegs(t, "", legsSpec)
	if _, err := r.gh.SetRole("mallory", ghstandin.RoleRead); err != nil {
		t.Fatal(err)
	}
	r.pass()
	r.on("acme/web", "mallory").comment(1, "/gallivant pause | let me")
	rep := r.pass()
	if got := subjectsOf(rep); strings.Contains(strings.Join(got, "\n"), "loop: request") {
		t.Fatalf("a read-only login's command was performed: %v", got)
	}
	if note := noteOf(rep); !strings.Contains(note, "ignored the command in comment") || !strings.Contains(note, "@mallory on acme/web#1") {
		t.Errorf("the pass report does not name the ignored command on the leg:\n%s", note)
	}

	r.on("acme/web", "bob").comment(1, "/gallivant pause | hold the console until the review")
	rep = r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: request pause from acme/web#1 by @bob" {
		t.Fatalf("after bob's pause on the leg: %v (%s)", got, noteOf(rep))
	}
	if pz := r.ledger(legsLedger).Delivery.Paused; pz.Login != "bob" || pz.PR.String() != "acme/web#1" {
		t.Errorf("paused = %+v, want bob from acme/web#1", pz)
	}
	r.on("acme/web", "bob").comment(1, "/gallivant unpause | go on")
	rep = r.pass()
	if got := subjectsOf(rep); len(got) == 0 || got[0] != "loop: request unpause from acme/web#1 by @bob" {
		t.Fatalf("after bob's unpause on the leg: %v (%s)", got, noteOf(rep))
	}
	if pz := r.ledger(legsLedger).Delivery.Paused; !pz.IsZero() {
		t.Errorf("still paused: %+v", pz)
	}
	a := legAnswers(r)
	if len(a) != 2 || !strings.Contains(a[0], "Done: `loop: request pause from acme/web#1 by @bob`") || !strings.Contains(a[1], "Done: `loop: request unpause from acme/web#1 by @bob`") {
		t.Errorf("answers on acme/web#1: %q, want the pause's and the unpause's", a)
	}
	if a := r.answers(); len(a) != 0 {
		t.Errorf("answers on acme/api#1, which nobody asked on: %q", a)
	}
	if n := strings.Count(strings.Join(r.subjects(), "\n"), "loop: request"); n != 2 {
		t.Errorf("%d request commits, want 2", n)
	}
	verifyControl(t, r)
}
