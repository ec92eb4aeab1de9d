package ledger

import "fmt"

// AdoptInput is what seeding an adopted pull request adds to a seed: the
// pull request the spec names and its head branch. SeedInput.Bases holds,
// for home, the pull request's head as read, not the base branch's.
type AdoptInput struct {
	PR     PullRef
	Branch string
}

// Adopt seeds the ledger of a spec that adopts an existing pull request
// (`loop: adopt <pr>`, issue 34): exactly Seed, except that the rows are
// worked on the pull request's head branch and start from its head, so
// the seed's baseline run closes the rows the pull request already
// satisfies and the remaining rows are worked on that branch.
func Adopt(in SeedInput, a AdoptInput) (*Ledger, Commit) {
	l, c := Seed(in)
	l.Delivery.Branch = a.Branch
	c.Subject = Subject{Kind: KindAdopt, PR: a.PR}.String()
	c.Sentence = fmt.Sprintf("Adopted %s: its branch %s at %s is the work branch. %s", a.PR, a.Branch, short(l.Base), c.Sentence)
	return l, c
}
