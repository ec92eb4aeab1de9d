package gatekeep

import (
	"fmt"
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// Adopting a pull request (issue 34, docs/delivery.md "Adopting a pull
// request"): a spec that names an existing pull request (`pr:`) is seeded
// against that pull request's head and worked on its head branch, and its
// delivery records that pull request instead of opening one. DecideAdopt
// is the rule that says whether gallivant may: it is taken when the
// ledger is seeded (`loop: adopt`), before each dispatch of the row loop,
// and when the rows are closed and the pull request is to be recorded
// (DecideOpen's StepAdopt).

// AdoptFacts is what deciding an adoption needs: the pull request the
// spec names, as GitHub shows it, and the spec's repository and base.
type AdoptFacts struct {
	PR PR
	// Found: GitHub has the pull request.
	Found          bool
	Open, Merged   bool
	Repo, SpecBase string
	// BaseRef is the pull request's base; HeadRef its head branch, in
	// HeadRepo ("" or Repo: the spec's repository itself; else a fork).
	BaseRef, HeadRef, HeadRepo string
	HeadSHA                    string
	// MaintainerCanModify: the author lets the base repository's writers
	// push to the fork's head branch.
	MaintainerCanModify bool
	// Branch is the ledger's work branch once seeded ("" before): the
	// pull request must still be from it.
	Branch string
}

// Fork reports whether the pull request's head branch is in another
// repository than the spec's.
func (f AdoptFacts) Fork() bool {
	return f.HeadRepo != "" && !strings.EqualFold(f.HeadRepo, f.Repo)
}

// DecideAdopt decides whether gallivant may adopt the named pull request:
// StepAdopt, with Detail the head branch; or a stop naming why not —
// not-pushable for a pull request that does not exist, is closed or
// merged, or whose head branch gallivant cannot push to, retargeted for
// one into another base than the spec's.
//
// A fork's head branch is pushable only while the author allows edits by
// maintainers: gallivant then works the rows on the fork's branch
// (PushRepo), and stops not-pushable the first pass after the author
// withdraws the permission (docs/requests.md "Adopting a pull request").
func DecideAdopt(f AdoptFacts) Action {
	stop := func(format string, args ...any) Action {
		return Action{Step: StepStop, Reason: ledger.StopNotPushable, Detail: fmt.Sprintf(format, args...)}
	}
	switch {
	case !f.Found:
		return stop("the spec adopts %s, which does not exist", f.PR)
	case f.Merged:
		return stop("the spec adopts %s, which is already merged; remove pr: to open a pull request of gallivant's own", f.PR)
	case !f.Open:
		return stop("the spec adopts %s, which is closed; reopen it, or remove pr:", f.PR)
	case f.BaseRef != f.SpecBase:
		return Action{Step: StepStop, Reason: ledger.StopRetargeted, Detail: fmt.Sprintf("the spec adopts %s, which targets %s; the spec delivers into %s", f.PR, f.BaseRef, f.SpecBase)}
	case f.Fork() && !f.MaintainerCanModify && f.Branch != "":
		return stop("the spec adopts %s, whose head branch %s is in the fork %s, which no longer allows edits by maintainers, so gallivant may not push to it any more; the author can tick \"Allow edits by maintainers\" again, then resume",
			f.PR, f.HeadRef, f.HeadRepo)
	case f.Fork() && !f.MaintainerCanModify:
		return stop("the spec adopts %s, whose head branch %s is in the fork %s, which does not allow edits by maintainers, so gallivant may not push to it; the author can tick \"Allow edits by maintainers\", or push the branch to %s",
			f.PR, f.HeadRef, f.HeadRepo, f.Repo)
	case f.Branch != "" && f.HeadRef != f.Branch:
		return stop("the spec adopts %s, which is now from %s, not from the branch %s its rows were worked on", f.PR, f.HeadRef, f.Branch)
	}
	return Action{Step: StepAdopt, Detail: f.HeadRef}
}

// PushRepo is the repository holding the branch an adoption works on: the
// fork's when the pull request is a fork's (DecideAdopt lets that be only
// while the fork allows edits by maintainers), else the spec's.
func (f AdoptFacts) PushRepo() string {
	if f.Fork() {
		return f.HeadRepo
	}
	return f.Repo
}

// adoptWords says an adoption in words.
func adoptWords(a Action) string {
	if a.Detail == "" {
		return "adopt the pull request the spec names: write the identity block and the receipt into its body, keeping the author's text"
	}
	return "adopt the pull request the spec names, working on its branch " + a.Detail
}
