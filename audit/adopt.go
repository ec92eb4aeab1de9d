package audit

import (
	"strings"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// replayAdopt proves `loop: adopt <pr>` (issue 34): a new ledger equal to
// ledger.Adopt of the spec as committed, which must name that pull
// request in its `pr:`. The pull request's head and branch are inputs of
// the adoption (what GitHub said at the pass), read from the child; a
// branch that is gallivant's own work branch is not an adopted one.
func replayAdopt(s *step) []outcome {
	ch := s.child
	branch := ch.Delivery.Branch
	if branch == "" {
		return refuse(SectionDelivery, "an adopted ledger records the pull request's head branch in branch:")
	}
	if s.c.Spec == nil {
		if strings.HasPrefix(branch, "gallivant/") {
			return refuse(SectionDelivery, "branch %s is a gallivant work branch, not an adopted pull request's", branch)
		}
		out := replaySeed(s)
		for i := range out {
			if out[i].c != nil {
				c := *out[i].c
				c.Subject = ledger.Subject{Kind: ledger.KindAdopt, PR: s.sub.PR}.String()
				out[i].c = &c
			}
		}
		return out
	}
	switch named := s.c.Spec.PR; {
	case named.IsZero():
		return refuse(SectionSubject, "the subject adopts %s but the spec names no pr:", s.sub.PR)
	case !strings.EqualFold(named.String(), s.sub.PR.String()):
		return refuse(SectionSubject, "the subject adopts %s but the spec names pr: %s", s.sub.PR, named)
	}
	in := ledger.SeedInput{Spec: s.c.Spec, SpecCommit: ch.Delivery.SpecCommit, Bases: map[string]string{specs.HomeMember: ch.Base},
		Allowance: ch.Allowance, Chain: ch.Delivery.Chain}
	if s.c.Spec.Allowance > 0 {
		in.Allowance = s.c.Spec.Allowance
	}
	want, c := ledger.Adopt(in, ledger.AdoptInput{PR: s.sub.PR, Branch: branch})
	return one(want, c)
}
