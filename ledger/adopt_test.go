package ledger

import (
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// TestAdoptSeedsOnTheHead: an adopted pull request's ledger is the seed's,
// on the pull request's branch and head, under `loop: adopt <pr>`.
func TestAdoptSeedsOnTheHead(t *testing.T) {
	t.Parallel()
	src := "---\nrepo: acme/shop\npr: acme/shop#7\n---\n# Adopt\n\n## Acceptance criteria\n1. One.\n2. Two.\n   - deferred: later\n"
	s, ds := specs.ParseSpec(parse.Parse("specs/adopt.md", []byte(src)), specs.Defaults{Base: "main"})
	if ds.HasErrors() {
		t.Fatalf("spec: %v", ds)
	}
	head := "0123456789abcdef0123456789abcdef01234567"
	in := SeedInput{Spec: s, SpecCommit: "fedcba9876543210fedcba9876543210fedcba98", Bases: map[string]string{specs.HomeMember: head}, Allowance: 3}
	l, c := Adopt(in, AdoptInput{PR: PullRef{Repo: "acme/shop", Number: 7}, Branch: "feature/login"})
	seeded, _ := Seed(in)
	seeded.Delivery.Branch = "feature/login"
	if diff := cmp.Diff(string(Format(seeded)), string(Format(l))); diff != "" {
		t.Errorf("adopted ledger (-seed on the branch +adopted):\n%s", diff)
	}
	if got, want := c.Subject, "loop: adopt acme/shop#7"; got != want {
		t.Errorf("subject = %q; want %q", got, want)
	}
	if got, want := c.Sentence, "Adopted acme/shop#7: its branch feature/login at 0123456 is the work branch. Seeded 2 rows (1 cut) from contract "+s.Contract().Fingerprint()+" at allowance 3."; got != want {
		t.Errorf("sentence = %q; want %q", got, want)
	}
	if got := l.WorkBranch(); got != "feature/login" {
		t.Errorf("WorkBranch() = %q; want feature/login", got)
	}
	back, pds := Parse("plans/adopt-ledger.md", Format(l))
	if pds.HasErrors() {
		t.Fatalf("the adopted ledger does not parse back: %v", pds)
	}
	if got := back.WorkBranch(); got != "feature/login" {
		t.Errorf("parsed WorkBranch() = %q; want feature/login", got)
	}
}
