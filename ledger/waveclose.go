package ledger

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// Closing rows by replay after the last wave (docs/plans.md "Wave
// execution"): once every task of a waves spec is done, each open row whose
// criterion some task cites is closed by replaying its evidence on the work
// branch's head, before any row is dispatched to an agent. A row whose
// replay passes with a test selected is done (`loop: close rows by replay`,
// its proof recorded as an evidence replay is); the others stay open, their
// failed replay recorded, and go to the row loop.

// CloseCheck is one evidence command to replay on the head after the last
// wave, and the open rows it closes when it passes: the row's own evidence
// command, else the `**Tests:**` commands of the tasks that cite the row's
// criterion, in plan order, joined by ` && `.
type CloseCheck struct {
	Command string
	Rows    []int
	// Tasks are the plan tasks (ledger ids) that cite the rows' criterion.
	Tasks []string
}

// CloseChecks returns what to replay to close l's rows after the last wave
// of plan, in row order (rows sharing a command share one check); nil when
// nothing is due: the ledger has no tasks, a task is not done, a row was
// dispatched already (the row loop has begun), or no open row without a
// recorded replay is cited by a task with a test command. A row whose
// command would hold a `;` (which ends an evidence command) is left to the
// row loop.
func CloseChecks(l *Ledger, s *specs.Spec, plan *specs.Plan) []CloseCheck {
	if len(l.Tasks) == 0 || s == nil || plan == nil || l.Pending != nil {
		return nil
	}
	for _, t := range l.Tasks {
		if t.Status != TaskDone {
			return nil
		}
	}
	for _, r := range l.Rows {
		if r.Attempts > 0 {
			return nil
		}
	}
	var out []CloseCheck
	at := map[string]int{}
	for _, r := range l.Rows {
		if r.Status != Open {
			continue
		}
		if _, replayed := l.ProofOf(r.N); replayed {
			continue
		}
		ac := s.AC(l.ACOf(r.N))
		if ac == nil {
			continue
		}
		var cmds, tasks []string
		for _, t := range plan.Tasks() {
			if !cites(t, *ac) {
				continue
			}
			tasks = append(tasks, PlanTaskID(t))
			for _, pt := range t.Tests {
				if c := strings.TrimSpace(pt.Text); pt.Kind == "command" && c != "" && !contains(cmds, c) {
					cmds = append(cmds, c)
				}
			}
		}
		cmd := EvidenceCommand(r.Evidence)
		if cmd == "" {
			cmd = strings.Join(cmds, " && ")
		}
		if len(tasks) == 0 || cmd == "" || strings.ContainsAny(cmd, ";\n") {
			continue
		}
		if i, ok := at[cmd]; ok {
			out[i].Rows = append(out[i].Rows, r.N)
			for _, id := range tasks {
				if !contains(out[i].Tasks, id) {
					out[i].Tasks = append(out[i].Tasks, id)
				}
			}
			continue
		}
		at[cmd] = len(out)
		out = append(out, CloseCheck{Command: cmd, Rows: []int{r.N}, Tasks: tasks})
	}
	return out
}

// cites reports whether plan task t cites criterion ac: by id for a
// spec-kit or Kiro task (a spec-kit story tag `US1` cites each of its
// scenarios `US1.k`), by a `**Spec:**` anchor whose lines hold the
// criterion's list marker for a gallivant task.
func cites(t *specs.Task, ac specs.AC) bool {
	for _, c := range t.Criteria {
		if c.Text == "" {
			continue
		}
		if c.Text == ac.ID || (strings.HasPrefix(ac.ID, c.Text+".") && strings.HasPrefix(c.Text, "US")) {
			return true
		}
	}
	if ac.ID != "" {
		return false
	}
	for _, a := range t.Anchors {
		if a.From <= ac.Pos.Line && ac.Pos.Line <= a.To {
			return true
		}
	}
	return false
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}

// Closes reports whether a replay closes its row: it passed and its runner
// selected at least one test (an assertion of no runner, or a selection of
// no test, proves no criterion here).
func (p Proof) Closes() bool {
	return p.Exit == 0 && p.Tests != "0 tests" && p.Tests != "assertion" && p.Tests != ""
}

// CloseByReplay records the replays after the last wave on head (`loop:
// close rows by replay`): each proof is recorded in `## Proof`; the row of
// a proof that Closes is done, its evidence the replayed command; the
// others stay open for the row loop. Each proof must be a run on head of
// an open row that was never dispatched.
func CloseByReplay(l *Ledger, head string, proofs []Proof) (*Ledger, Commit, error) {
	if !taskSHARE.MatchString(head) {
		return nil, Commit{}, fmt.Errorf("the head the rows were replayed on is %s, not a 40-hex commit", quote(head))
	}
	if len(proofs) == 0 {
		return nil, Commit{}, fmt.Errorf("no replay to record: closing rows by replay needs at least one run")
	}
	n := l.Clone()
	var closed, open []string
	trailers := []Trailer{{Key: TrailerHead, Value: head}}
	seen := map[int]bool{}
	for _, p := range proofs {
		if p.Head != head || p.CarriedFrom != "" {
			return nil, Commit{}, fmt.Errorf("the replay of row %d ran on %s, not on the head %s", p.Row, quote(p.Ran()), short(head))
		}
		if seen[p.Row] {
			return nil, Commit{}, fmt.Errorf("row %d is replayed twice", p.Row)
		}
		seen[p.Row] = true
		r, ok := n.Row(p.Row)
		if !ok {
			return nil, Commit{}, fmt.Errorf("the ledger has no row %d", p.Row)
		}
		if r.Status != Open || r.Attempts > 0 {
			return nil, Commit{}, fmt.Errorf("row %d is %s after %d attempts; only an open row never dispatched is closed by replay", p.Row, r.Status, r.Attempts)
		}
		if p.Command == "" || strings.ContainsAny(p.Command, ";\n") {
			return nil, Commit{}, fmt.Errorf("the replayed command of row %d is %s; an evidence command is one line without `;`", p.Row, quote(p.Command))
		}
		if p.Closes() {
			r.Status = Done
			r.Evidence = fmt.Sprintf("%s; replayed on %s after the last wave: exit 0, %s", p.Command, short(head), p.Tests)
			closed = append(closed, strconv.Itoa(p.Row))
		} else {
			open = append(open, strconv.Itoa(p.Row))
		}
		trailers = append(trailers, Trailer{Key: TrailerProof, Value: p.String()})
	}
	n.SetProofs(proofs)
	var b strings.Builder
	fmt.Fprintf(&b, "After the last wave the evidence was replayed on %s:", short(head))
	if len(closed) > 0 {
		fmt.Fprintf(&b, " %s closed", rowsPhrase(closed))
	} else {
		b.WriteString(" no row closed")
	}
	if len(open) > 0 {
		fmt.Fprintf(&b, "; %s left to the row loop (the replay failed or selected no test)", rowsPhrase(open))
	}
	b.WriteString(".")
	return n, Commit{Subject: Subject{Kind: KindCloseRows}.String(), Sentence: b.String(), Trailers: trailers}, nil
}

// rowsPhrase renders row numbers as `row 2` or `rows 1, 3`.
func rowsPhrase(ns []string) string {
	if len(ns) == 1 {
		return "row " + ns[0]
	}
	return "rows " + strings.Join(ns, ", ")
}
