package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// TestDecideAdopt: the rule for adopting the pull request a spec names
// (issue 34): gallivant adopts an open pull request into the spec's base
// from a branch of the spec's repository, or of a fork while the fork
// allows edits by maintainers; anything else is a stop that names why.
func TestDecideAdopt(t *testing.T) {
	t.Parallel()
	named := PR{Repo: "acme/shop", Number: 7}
	open := AdoptFacts{PR: named, Found: true, Open: true, Repo: "acme/shop", SpecBase: "main", BaseRef: "main", HeadRef: "feature/login", HeadRepo: "acme/shop", HeadSHA: head}
	with := func(change func(*AdoptFacts)) AdoptFacts { f := open; change(&f); return f }
	notPushable := func(detail string) Action {
		return Action{Step: StepStop, Reason: ledger.StopNotPushable, Detail: detail}
	}
	tests := []struct {
		name string
		f    AdoptFacts
		want Action
	}{
		{"a person's pull request in the spec's repository", open, Action{Step: StepAdopt, Detail: "feature/login"}},
		{"GitHub omits the head repository", with(func(f *AdoptFacts) { f.HeadRepo = "" }), Action{Step: StepAdopt, Detail: "feature/login"}},
		{"the head repository in another case", with(func(f *AdoptFacts) { f.HeadRepo = "Acme/Shop" }), Action{Step: StepAdopt, Detail: "feature/login"}},
		{"still from the branch the rows were worked on", with(func(f *AdoptFacts) { f.Branch = "feature/login" }), Action{Step: StepAdopt, Detail: "feature/login"}},
		{"no such pull request", with(func(f *AdoptFacts) { f.Found = false }),
			notPushable("the spec adopts acme/shop#7, which does not exist")},
		{"merged", with(func(f *AdoptFacts) { f.Open, f.Merged = false, true }),
			notPushable("the spec adopts acme/shop#7, which is already merged; remove pr: to open a pull request of gallivant's own")},
		{"closed", with(func(f *AdoptFacts) { f.Open = false }),
			notPushable("the spec adopts acme/shop#7, which is closed; reopen it, or remove pr:")},
		{"into another base", with(func(f *AdoptFacts) { f.BaseRef = "develop" }),
			Action{Step: StepStop, Reason: ledger.StopRetargeted, Detail: "the spec adopts acme/shop#7, which targets develop; the spec delivers into main"}},
		{"a fork without maintainer edits", with(func(f *AdoptFacts) { f.HeadRepo = "bob/shop" }),
			notPushable(`the spec adopts acme/shop#7, whose head branch feature/login is in the fork bob/shop, which does not allow edits by maintainers, so gallivant may not push to it; the author can tick "Allow edits by maintainers", or push the branch to acme/shop`)},
		{"a fork with maintainer edits", with(func(f *AdoptFacts) { f.HeadRepo, f.MaintainerCanModify = "bob/shop", true }), Action{Step: StepAdopt, Detail: "feature/login"}},
		{"a fork with maintainer edits, still from the rows' branch", with(func(f *AdoptFacts) { f.HeadRepo, f.MaintainerCanModify, f.Branch = "bob/shop", true, "feature/login" }),
			Action{Step: StepAdopt, Detail: "feature/login"}},
		{"a fork whose author revoked maintainer edits after seeding", with(func(f *AdoptFacts) { f.HeadRepo, f.Branch = "bob/shop", "feature/login" }),
			notPushable(`the spec adopts acme/shop#7, whose head branch feature/login is in the fork bob/shop, which no longer allows edits by maintainers, so gallivant may not push to it any more; the author can tick "Allow edits by maintainers" again, then resume`)},
		{"moved to another branch after seeding", with(func(f *AdoptFacts) { f.Branch = "feature/old" }),
			notPushable("the spec adopts acme/shop#7, which is now from feature/login, not from the branch feature/old its rows were worked on")},
		{"a closed fork: closed first", with(func(f *AdoptFacts) { f.Open, f.HeadRepo = false, "bob/shop" }),
			notPushable("the spec adopts acme/shop#7, which is closed; reopen it, or remove pr:")},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if diff := cmp.Diff(tt.want, DecideAdopt(tt.f)); diff != "" {
				t.Errorf("DecideAdopt (-want +got):\n%s", diff)
			}
		})
	}
}

// TestDecideOpenAdopts: once every row is closed, a spec that adopts a
// pull request records it (StepAdopt) where another opens one; its
// vanished branch is a boundary stop, never "never created".
func TestDecideOpenAdopts(t *testing.T) {
	t.Parallel()
	f := OpenFacts{Repo: "acme/shop", Branch: "feature/login", Base: "main", Exists: true, Head: head, AheadBy: 1, Files: 1, Adopts: true}
	if diff := cmp.Diff(Action{Step: StepAdopt}, DecideOpen(f)); diff != "" {
		t.Errorf("DecideOpen (-want +got):\n%s", diff)
	}
	f.Exists = false
	want := Action{Step: StepStop, Reason: ledger.StopBoundary, Detail: "every row is closed but the work branch feature/login no longer exists in acme/shop"}
	if diff := cmp.Diff(want, DecideOpen(f)); diff != "" {
		t.Errorf("DecideOpen of a vanished adopted branch (-want +got):\n%s", diff)
	}
	if got, want := (Action{Step: StepAdopt, Detail: "feature/login"}).Words(), "adopt the pull request the spec names, working on its branch feature/login"; got != want {
		t.Errorf("Words() = %q; want %q", got, want)
	}
}

// TestAdoptPushRepo: an adopted fork's rows are pushed to the fork's
// branch, any other adoption's to the spec's repository.
func TestAdoptPushRepo(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		f    AdoptFacts
		want string
	}{
		{"same repository", AdoptFacts{Repo: "acme/shop", HeadRepo: "acme/shop"}, "acme/shop"},
		{"head repository omitted", AdoptFacts{Repo: "acme/shop"}, "acme/shop"},
		{"another case", AdoptFacts{Repo: "acme/shop", HeadRepo: "ACME/shop"}, "acme/shop"},
		{"a fork", AdoptFacts{Repo: "acme/shop", HeadRepo: "bob/shop", MaintainerCanModify: true}, "bob/shop"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := tt.f.PushRepo(); got != tt.want {
				t.Errorf("PushRepo() = %q; want %q", got, tt.want)
			}
		})
	}
}
