package audit

import (
	"github.com/gallivant/gallivant/ledger"
)

// replayCloseRows proves `loop: close rows by replay`: the parent's waves
// were over (every task done) and no row had been dispatched, and the child
// is ledger.CloseByReplay of the parent with the runs its Gallivant-Proof
// trailers record on the head its Gallivant-Head trailer names. Which
// commands the plan's tasks give a row is an input the history does not
// hold (the plan is read at the commit's time); what the runs found is the
// executor's, recorded in the trailers as a verification's are.
func replayCloseRows(s *step) []outcome {
	for _, t := range s.parent.Tasks {
		if t.Status != ledger.TaskDone {
			return refuse(SectionTasks, "task %s is %s; rows are closed by replay only after the last wave", t.ID, t.Status)
		}
	}
	if len(s.parent.Tasks) == 0 {
		return refuse(SectionTasks, "the ledger lists no tasks; only a waves spec's rows are closed by replay")
	}
	head := s.c.trailer(ledger.TrailerHead)
	var proofs []ledger.Proof
	for _, t := range s.c.Trailers() {
		if t.Key != ledger.TrailerProof {
			continue
		}
		p, _, err := ledger.ParseProof(t.Value)
		if err != nil {
			return refuse(SectionTrailers, "the evidence record %s: %v", t.Value, err)
		}
		proofs = append(proofs, p)
	}
	want, c, err := ledger.CloseByReplay(s.parent, head, proofs)
	if err != nil {
		return refuse(SectionRows, "%v", err)
	}
	return one(want, c)
}
