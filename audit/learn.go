package audit

import (
	"github.com/gallivant/gallivant/gatekeep"
	"github.com/gallivant/gallivant/ledger"
)

// The learn task's transitions (docs/learning.md "The learn task"), each
// replayed on the parent ledger with gatekeep's transition as the oracle.
// The dispatch instant and the candidates' fingerprints are inputs the
// control repository cannot know; they are read from the child's `learn:`
// line, the only key these transitions set.

// learnFrom refuses a learn transition whose parent is not in the state
// it starts from.
func learnFrom(s *step, want ...ledger.LearnState) []outcome {
	if s.parent.Delivery == nil || s.parent.Delivery.Phase != ledger.PhaseDone {
		return refuse(SectionDelivery, "only a done entry has a learn task")
	}
	got := s.parent.Delivery.Learn.State
	for _, w := range want {
		if got == w {
			return nil
		}
	}
	if got == "" {
		got = "no learn task"
	}
	return refuse(SectionDelivery, "the learn task is %s; this transition starts from %s", got, want[0])
}

func replayLearn(s *step) []outcome {
	return withPR(func(s *step, p gatekeep.PR) []outcome {
		// From a dispatched task: the same attempt again, its agent
		// having left no answer (gatekeep.LearnStepRedispatch).
		if bad := learnFrom(s, "", ledger.LearnRefused, ledger.LearnDispatched); bad != nil {
			return bad
		}
		if lr := s.parent.Delivery.Learn; lr.State == ledger.LearnRefused && lr.Final() {
			return refuse(SectionDelivery, "the learn task was refused on its last attempt (%d of %d)", lr.Attempts(), ledger.MaxLearnAttempts)
		}
		return one(gatekeep.LearnDispatched(s.parent, p, s.child.Delivery.Learn.At))
	})(s)
}

func replayLearnReturn(s *step) []outcome {
	if bad := learnFrom(s, ledger.LearnDispatched); bad != nil {
		return bad
	}
	// What the learn run reported spending lives on the lessons branch
	// (its commits' tokens:/cost: trailers) or in its CLI's usage: the
	// spend is taken from the child, but only ever upwards from the
	// parent's, as for a row's record.
	now, was := s.child.Spent(), s.parent.Spent()
	if now != was && (now.Tokens < was.Tokens || now.Micros < was.Micros) {
		return refuse(SectionDelivery, "spent went from %q to %q; a learn return only adds what its run reported", was, now)
	}
	outs := replayLearnReturnOf(s)
	for _, o := range outs {
		if o.err == nil && o.l != nil && now != was {
			o.l.Delivery.Spent = now
		}
	}
	return outs
}

func replayLearnReturnOf(s *step) []outcome {
	switch s.sub.Kind {
	case ledger.KindProposeLessons:
		p, err := gatekeep.ParsePR(s.sub.PR.String(), "")
		if err != nil {
			return refuse(SectionSubject, "%v", err)
		}
		var cands []gatekeep.LessonCandidate
		for _, fp := range s.child.Delivery.Learn.Candidates {
			cands = append(cands, gatekeep.LessonCandidate{Fingerprint: fp})
		}
		return one(gatekeep.LessonsProposed(s.parent, p, cands))
	case ledger.KindNoLessons:
		return withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.NoLessons(s.parent, p, "")) })(s)
	}
	return withPR(func(s *step, p gatekeep.PR) []outcome { return one(gatekeep.LessonsRefused(s.parent, p, "")) })(s)
}

func replayProposalDecided(s *step) []outcome {
	if bad := learnFrom(s, ledger.LearnProposed); bad != nil {
		return bad
	}
	p, err := gatekeep.ParsePR(s.sub.PR.String(), "")
	if err != nil {
		return refuse(SectionSubject, "%v", err)
	}
	if own := s.parent.Delivery.Learn.PR; own != p.Ref() {
		return refuse(SectionSubject, "the subject names %s but the entry's lessons proposal is %s", p, own)
	}
	if s.sub.Kind == ledger.KindLessonsMerged {
		return one(gatekeep.LessonsMerged(s.parent, p))
	}
	return one(gatekeep.LessonsDeclined(s.parent, p))
}
