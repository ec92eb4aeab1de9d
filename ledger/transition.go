package ledger

import (
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/gallivant/gallivant/specs"
)

// Refusal is a request that is malformed or not accepted in the current
// state. The ledger is unchanged; the request stays in place with Reason.
type Refusal struct {
	Request string
	Reason  string
}

func (r *Refusal) Error() string { return fmt.Sprintf("request %q refused: %s", r.Request, r.Reason) }

// ErrNotPending is returned when a settle transition finds no dispatch outstanding.
var ErrNotPending = errors.New("no dispatch is outstanding")

// ErrNotStopped is returned when the loop's own resume finds no stop.
var ErrNotStopped = errors.New("the entry is not stopped")

// SeedInput is what seeding a ledger needs besides the spec.
type SeedInput struct {
	Spec *specs.Spec
	// SpecCommit is the control commit whose spec is approved.
	SpecCommit string
	// Bases maps each member to its base branch head in its repository.
	Bases map[string]string
	// Allowance is defaults.allowance; the spec's own allowance wins.
	Allowance int
	// Chain is the spec's place in its chain, `<chain> <k>/<n>`; zero
	// when the spec is in no chain.
	Chain ChainRef
	// Plan is the plan a waves spec is delivered by (docs/plans.md "Wave
	// execution"): its tasks seed the `## Tasks` section. Nil for a spec
	// delivered by its rows alone.
	Plan *specs.Plan
}

// Seed creates the ledger of an approved spec (`loop: seed ledger`): one row
// per entry, `cut` where the disposition cuts (evidence = the disposition),
// `open` otherwise; the allowance from the spec or the defaults, never
// scaled by row count (L-22). With a plan, the `## Tasks` section lists
// its tasks, every one open in its wave (TasksOf).
func Seed(in SeedInput) (*Ledger, Commit) {
	s := in.Spec
	l := &Ledger{
		Spec:         s.Path,
		Base:         in.Bases[specs.HomeMember],
		Verification: Verification(s),
		Allowance:    in.Allowance,
		Decisions:    []Decision{},
		Delivery:     NewDelivery(),
		HasRequests:  true,
	}
	if s.Allowance > 0 {
		l.Allowance = s.Allowance
	}
	acs := map[int]specs.AC{}
	for _, ac := range s.ACs {
		acs[ac.N] = ac
	}
	cut := 0
	for i, e := range s.Entries() {
		r := Row{N: i + 1, Status: Open}
		if d := acs[e.AC].Disposition; d.Cuts() {
			r.Status, r.Evidence = Cut, cleanEvidence(d.String())
			cut++
		}
		l.Rows = append(l.Rows, r)
		if s.Coordinated() {
			l.Mapping = append(l.Mapping, Mapping{Row: r.N, AC: e.AC, Leg: e.Member})
		}
	}
	if s.Coordinated() {
		for _, m := range s.Members() {
			l.Members = append(l.Members, Member{Name: m, Base: in.Bases[m]})
		}
	}
	contract := s.Contract().Fingerprint()
	l.Delivery.SpecCommit = in.SpecCommit
	l.Delivery.Contract = contract
	l.Delivery.Branch = specs.Branch(s.Path)
	l.Delivery.Labels = l.labelsFor(s)
	l.Delivery.Phase = PhaseImplement
	c := Commit{
		Subject:  Subject{Kind: KindSeedLedger}.String(),
		Sentence: fmt.Sprintf("Seeded %s (%d cut) from contract %s at allowance %d.", plural(len(l.Rows), "row"), cut, contract, l.Allowance),
	}
	if in.Plan != nil {
		l.Tasks = TasksOf(in.Plan)
		c.Sentence = fmt.Sprintf("Seeded %s (%d cut) and %s in %s of %s from contract %s at allowance %d.", plural(len(l.Rows), "row"), cut,
			plural(len(l.Tasks), "task"), plural(len(in.Plan.Waves), "wave"), in.Plan.Path, contract, l.Allowance)
	}
	if !in.Chain.IsZero() {
		l.Delivery.Chain = in.Chain
		c.Trailers = append(c.Trailers, Trailer{Key: TrailerChain, Value: in.Chain.String()})
	}
	return l, c
}

// Verification renders a spec's Verify commands as the ledger's one
// verification command, or `none`.
func Verification(s *specs.Spec) string {
	if len(s.Verify) == 0 {
		return "none"
	}
	return strings.Join(s.Verify, " && ")
}

// cleanEvidence makes text safe for an evidence cell.
func cleanEvidence(s string) string {
	s = strings.Map(func(r rune) rune {
		if isControl(r) {
			return ' '
		}
		return r
	}, s)
	for hasMarkup(s) {
		i := strings.IndexByte(s, '<')
		for i >= 0 && !hasMarkup(s[i:i+min(2, len(s)-i)]) {
			j := strings.IndexByte(s[i+1:], '<')
			if j < 0 {
				i = -1
				break
			}
			i += 1 + j
		}
		if i < 0 {
			break
		}
		s = s[:i] + "‹" + s[i+1:]
	}
	s = strings.ReplaceAll(s, `\|`, `/|`)
	return strings.TrimSpace(strings.Join(strings.Fields(s), " "))
}

// Dispatch records a dispatch before the executor starts (write-ahead, L-55):
// iterations +1 and the `pending:` tuple naming the work branch head.
func Dispatch(l *Ledger, a Action, head string, now time.Time) (*Ledger, Commit) {
	n := l.Clone()
	n.Iterations++
	n.Pending = &Pending{Target: a.Target, Member: a.Member, SHA: head}
	n.delivery().DispatchedAt = Stamp(now)
	n.delivery().Unavailable = "" // a withdrawn dispatch is replaced
	subject := Subject{Kind: KindDispatch, Row: a.Target}.String()
	what := describeTarget(a.Target)
	sentence := fmt.Sprintf("Dispatched %s to %s as iteration %d from %s.", what, a.Member, n.Iterations, short(head))
	if a.Model != "" {
		sentence = fmt.Sprintf("Dispatched %s to %s as iteration %d from %s on the escalation model %s.", what, a.Member, n.Iterations, short(head), a.Model)
	}
	return n, Commit{Subject: subject, Sentence: sentence, Trailers: []Trailer{{TrailerHead, head}}}
}

func (l *Ledger) delivery() *Delivery {
	if l.Delivery == nil {
		l.Delivery = NewDelivery()
	}
	return l.Delivery
}

// Escalate writes a row's one escalation marker (L-47) before its escalated
// attempt; the model rides in the delivery section until that dispatch settles.
func Escalate(l *Ledger, row int, model string) (*Ledger, Commit) {
	n := l.Clone()
	n.Decisions = append(n.Decisions, newEscalatedDecision(row, n.EffectiveAllowance(row)))
	n.delivery().Model = model
	sentence := fmt.Sprintf("Row %d reached its escalation threshold; its next attempt runs on %s.", row, model)
	if model == "" {
		sentence = fmt.Sprintf("Row %d reached its escalation threshold; executor.escalation_model is not set, so its escalated attempt runs on the default model.", row)
	}
	return n, Commit{
		Subject:  Subject{Kind: KindEscalate, Row: row}.String(),
		Sentence: sentence,
	}
}

// Stop records a stop (`loop: stop <reason>`) with the stop text in the body.
// It changes no counter (L-122).
func Stop(l *Ledger, reason StopReason, detail string, target int) (*Ledger, Commit) {
	n := l.Clone()
	n.delivery().Stop = StopRecord{Reason: reason, Detail: cleanEvidence(detail)}
	return n, Commit{
		Subject:  Subject{Kind: KindStop, Reason: reason}.String(),
		Sentence: fmt.Sprintf("Stopped (%s): %s.", reason, strings.TrimSuffix(detail, ".")),
		Text:     StopText(l, reason, detail, target),
	}
}

// Resumed is the loop's own resume (`loop: resume` without a request): the
// condition of the stop no longer holds (why says how: the spec exists
// again, the interrupted dispatch's return arrived), so the stop is cleared
// and nothing else changes. It refuses a ledger that is not stopped with
// ErrNotStopped.
func Resumed(l *Ledger, why string) (*Ledger, Commit, error) {
	if _, _, stopped := l.Stop(); !stopped {
		return nil, Commit{}, ErrNotStopped
	}
	n := l.Clone()
	n.clearStop()
	return n, Commit{Subject: Subject{Kind: KindResume}.String(), Sentence: "Resumed: " + why + "."}, nil
}

// MigrateAllowance replaces a legacy `cap:` header by `allowance: <n>` and
// changes nothing else (L-33).
func MigrateAllowance(l *Ledger, allowance int) (*Ledger, Commit) {
	n := l.Clone()
	old := n.Cap
	n.Cap, n.Allowance = 0, allowance
	return n, Commit{
		Subject:  Subject{Kind: KindMigrateAllowance}.String(),
		Sentence: fmt.Sprintf("Replaced the legacy cap: %d header by allowance: %d; attempts, iterations and decisions are unchanged.", old, allowance),
	}
}

// removeRequest drops the first request line equal to line.
func (l *Ledger) removeRequest(line string) {
	for i, r := range l.Requests {
		if r == line {
			l.Requests = append(l.Requests[:i:i], l.Requests[i+1:]...)
			return
		}
	}
}

func (l *Ledger) clearStop() { l.delivery().Stop = StopRecord{} }

// ApplyRequest performs an accepted request and returns the new ledger and
// its commit, which also removes the request line. A request the current
// state does not accept returns a *Refusal and changes nothing. A
// resnapshot needs the approved and the edited spec and goes through Amend.
func ApplyRequest(l *Ledger, r Request, now time.Time) (*Ledger, Commit, error) {
	refuse := func(format string, args ...any) (*Ledger, Commit, error) {
		return nil, Commit{}, refusal(r, format, args...)
	}
	if r.Kind == RequestReopen {
		return reopenRow(l, r, refuse)
	}
	if r.Kind == RequestPause || r.Kind == RequestUnpause {
		return refuse("%s is a pull-request command (`/gallivant %s`); in the control repository, pause with `status: paused` in the spec", r.Kind, r.Kind)
	}
	reason, _, stopped := l.Stop()
	if !stopped {
		return refuse("the entry is not stopped; %s is accepted only at a stop", r.Kind)
	}
	if !clears(reason, r.Kind) {
		return refuse("a %s stop is cleared by %s, not %s", reason, strings.Join(ClearingRequests(reason), " or "), r.Kind)
	}
	if w, ok := l.waveStopped(); ok && reason == StopAllowance && r.Kind == RequestRetry {
		// A retry grants one row an attempt; the wave's task would stop
		// the entry again at once.
		return refuse("the stop is wave %d's, not a row's (%s); rows +N raises the allowance the tasks share, and the wave runs again", w.Wave, w.Detail)
	}
	n := l.Clone()
	n.removeRequest(r.Line)
	n.clearStop()
	c := Commit{Trailers: []Trailer{{TrailerRequest, r.Line}}}
	if apply, ok := requestAppliers[r.Kind]; ok {
		if err := apply(n, r, reason, now, &c); err != nil {
			return nil, Commit{}, err
		}
	}
	if r.Text != "" && r.Kind != RequestRetry {
		c.Sentence += " Reason: " + r.Text + "."
	}
	return n, c, nil
}

// refusal is the *Refusal of request r, for the reason format says.
func refusal(r Request, format string, args ...any) error {
	return &Refusal{Request: r.Line, Reason: fmt.Sprintf(format, args...)}
}

// clears reports whether a request of kind is one that clears a stop of
// reason.
func clears(reason StopReason, kind RequestKind) bool {
	for _, f := range ClearingRequests(reason) {
		if strings.HasPrefix(f, kind.String()) {
			return true
		}
	}
	return false
}

// requestAppliers perform each request that clears a stop on n, the
// ledger with the request line removed and the stop cleared (a stop of
// reason), and write its subject and sentence into c; an error is a
// *Refusal.
var requestAppliers = map[RequestKind]func(n *Ledger, r Request, reason StopReason, now time.Time, c *Commit) error{
	RequestRetry:  applyRetry,
	RequestRows:   applyRows,
	RequestResume: applyResume,
	RequestRecheck: func(n *Ledger, _ Request, reason StopReason, _ time.Time, c *Commit) error {
		n.delivery().eachPull(func(p *PullState) { p.Retry = WriteRetry{} }, false)
		c.Subject = Subject{Kind: KindResume}.String()
		c.Sentence = "Rechecking: the failure count of the refused GitHub write is cleared."
		if reason == StopMergeUnknown {
			c.Sentence = "Rechecking: GitHub is asked for the pull request's mergeability again."
		}
		return nil
	},
	RequestBudget: func(n *Ledger, r Request, _ StopReason, _ time.Time, c *Commit) error {
		n.delivery().BudgetGranted = n.Delivery.BudgetGranted.Add(r.Amount)
		c.Subject = Subject{Kind: KindRaiseBudget}.String()
		c.Sentence = fmt.Sprintf("Raised the budget by %s; %s spent so far.", r.Amount, n.Spent())
		return nil
	},
	RequestResnapshot: func(_ *Ledger, r Request, _ StopReason, _ time.Time, _ *Commit) error {
		return refusal(r, "resnapshot needs the edited spec; the reconciler applies it with Amend")
	},
	RequestAccept: func(_ *Ledger, _ Request, _ StopReason, _ time.Time, c *Commit) error {
		// The ledger as the person left it becomes the entry's state; this
		// commit is the last loop: version later hand-edit checks compare with.
		c.Subject = Subject{Kind: KindAccept}.String()
		c.Sentence = "Accepted a person's edit of the ledger's reconciler-owned sections."
		return nil
	},
}

// applyRetry performs `retry <n> | <hint>`: one more allowed attempt for
// an open or failed row, with the hint.
func applyRetry(n *Ledger, r Request, _ StopReason, _ time.Time, c *Commit) error {
	row, ok := n.Row(r.Row)
	if !ok {
		return refusal(r, "row %d does not exist; the ledger has rows 1 to %d", r.Row, len(n.Rows))
	}
	if !row.Status.Unresolved() {
		return refusal(r, "row %d is %s; retry takes an open or failed row", r.Row, row.Status)
	}
	allowed := n.EffectiveAllowance(r.Row) + 1
	n.Decisions = append(n.Decisions, newRetryDecision(r.Row, r.Text, allowed))
	// A retry opens new stagnation and miss windows (L-40, L-79).
	n.delivery().Misses = 0
	n.delivery().EmptyReturns = 0
	c.Subject = Subject{Kind: KindRetry, Row: r.Row}.String()
	c.Sentence = fmt.Sprintf("Row %d gets one more attempt (%d allowed) with a hint from a person.", r.Row, allowed)
	return nil
}

// applyRows performs `rows +N`: the shared allowance grows by N.
func applyRows(n *Ledger, r Request, _ StopReason, _ time.Time, c *Commit) error {
	if n.Allowance == 0 {
		return refusal(r, "the ledger still has a legacy cap: header; it is migrated to allowance: first")
	}
	n.Decisions = append(n.Decisions, newGrantDecision(r.N, r.Text))
	n.Allowance += r.N
	c.Subject = Subject{Kind: KindRaiseAllowance}.String()
	c.Sentence = fmt.Sprintf("Raised the shared allowance by %d to %d; attempts and iterations are unchanged.", r.N, n.Allowance)
	return nil
}

// applyResume performs `resume | <why>` at a stop of reason: what runs
// again depends on the stop.
func applyResume(n *Ledger, r Request, reason StopReason, now time.Time, c *Commit) error {
	c.Subject = Subject{Kind: KindResume}.String()
	switch reason {
	case StopInterrupted:
		// The same dispatch runs again: the consumed iteration stays
		// consumed and no new count is taken (L-69).
		if n.Pending == nil {
			return refusal(r, "no dispatch is outstanding to resume")
		}
		n.delivery().DispatchedAt = Stamp(now)
		c.Sentence = fmt.Sprintf("Resumed: the interrupted dispatch of %s runs again as iteration %d.", describeTarget(n.Pending.Target), n.Iterations)
	case StopHarnessError:
		// The same dispatch runs again, as after an interrupted stop; its
		// dispatched-at restarts now, so that a reconciler on another
		// cache, which cannot see this run, does not find it overdue and
		// stop it interrupted while it runs. A round's harness error has
		// no dispatch outstanding: the round is dispatched afresh.
		if n.Pending != nil {
			n.delivery().DispatchedAt = Stamp(now)
			c.Sentence = fmt.Sprintf("Resumed: the dispatch of %s that failed in the executor runs again as iteration %d.", describeTarget(n.Pending.Target), n.Iterations)
			break
		}
		c.Sentence = fmt.Sprintf("Resumed after the %s stop.", reason)
	case StopBoundary:
		// The branch is accepted as it is; commits are kept, attempts
		// unchanged (L-51).
		n.Pending = nil
		n.delivery().DispatchedAt = time.Time{}
		n.delivery().Model = ""
		c.Sentence = "Resumed: the work branch is accepted as it is, every commit kept."
	case StopClosed, StopLegClosed:
		// The closed pull request is reopened (or replaced when GitHub
		// refuses) by the next step, before anything else; without
		// this the entry would stop closed again in the same pass.
		n.delivery().eachPull(func(p *PullState) { p.Owed = OwedWrite{Write: "reopen"} }, true)
		c.Sentence = "Resumed: the closed pull request is reopened next."
	case StopVerifyFailed:
		// The verification runs again, with one repair again.
		n.delivery().eachPull(func(p *PullState) { p.Verified, p.VerifyRepair, p.DispatchedAt = VerifyResult{}, "", time.Time{} }, false)
		c.Sentence = "Resumed: the verification runs again on the work branch's head."
	case StopChecksSilent:
		// The CI wait starts again from now.
		n.delivery().eachPull(func(p *PullState) { p.HeadAt = Stamp(now) }, true)
		c.Sentence = "Resumed: the wait for CI starts again now."
	case StopReviewerSilent:
		// The reviewer is asked again from now; the nudge is
		// available again.
		n.delivery().eachPull(func(p *PullState) { p.ReviewerAsked, p.Nudged = Stamp(now), "" }, true)
		c.Sentence = "Resumed: the reviewer clock restarts now."
	default:
		c.Sentence = fmt.Sprintf("Resumed after the %s stop.", reason)
	}
	return nil
}

func describeTarget(t int) string {
	if t == SeedTarget {
		return "the seed"
	}
	return fmt.Sprintf("row %d", t)
}

// ReopenedByRequest is the evidence of a done row a person reopened.
const ReopenedByRequest = "reopened by request"

// reopenRow performs `reopen <n> | <why>`: a done row goes back to open
// with the reason as its hint and one more allowed attempt, recorded as a
// retry decision so that the next dispatch targets it (L-41). A pull
// request already open for the entry is watched again once every row is
// closed; its ready label, if any, is removed first. It is accepted at any
// time before the entry is done and changes no stop.
func reopenRow(l *Ledger, r Request, refuse func(string, ...any) (*Ledger, Commit, error)) (*Ledger, Commit, error) {
	if l.Phase() == PhaseDone {
		return refuse("the entry is done; reopen a row before its pull request merges, or write a new spec")
	}
	row, ok := l.Row(r.Row)
	if !ok {
		return refuse("row %d does not exist; the ledger has rows 1 to %d", r.Row, len(l.Rows))
	}
	if row.Status != Done {
		return refuse("row %d is %s; reopen takes a done row (retry takes an open or failed one)", r.Row, row.Status)
	}
	n := l.Clone()
	n.removeRequest(r.Line)
	nr, _ := n.Row(r.Row)
	nr.Status, nr.Evidence = Open, ReopenedByRequest
	allowed := n.EffectiveAllowance(r.Row) + 1
	n.Decisions = append(n.Decisions, newRetryDecision(r.Row, r.Text, allowed))
	n.delivery().Misses = 0
	n.delivery().EmptyReturns = 0
	if p := n.Phase(); p == PhaseReview || p == PhaseReady || p == PhaseVerify {
		n.delivery().Phase = PhaseImplement
	}
	return n, Commit{Subject: Subject{Kind: KindReopenRow, Row: r.Row}.String(),
		Sentence: fmt.Sprintf("A person reopened row %d (%d attempts allowed): %s.", r.Row, allowed, strings.TrimSuffix(r.Text, ".")),
		Trailers: []Trailer{{TrailerRequest, r.Line}}}, nil
}

// MaxReruns bounds Rerun: how often the loop itself runs an outstanding
// dispatch again whose agent provably never answered. Each rerun needs a
// new kill of the reconciler (or a reconciler that died before starting
// the agent), so the bound only stops a dispatch whose agent takes its
// reconciler down with it every time; three, like a job's retry budget.
const MaxReruns = 3

// Rerun runs the outstanding dispatch again without a new count, as
// `resume` after `interrupted` would (L-69), when the loop knows its agent
// never answered: it was killed, or its reconciler died before it started,
// and no return reached the work branch. It is the loop's own, bounded by
// MaxReruns; after that the dispatch stops `interrupted` for a person.
//
// A rerun may also answer an `interrupted` stop that a reconciler without
// the run record wrote (it could not see that the agent never answered):
// the stop is cleared in the same commit, since the dispatch runs again.
func Rerun(l *Ledger, now time.Time) (*Ledger, Commit) {
	n := l.Clone()
	n.delivery().Stop = StopRecord{}
	n.delivery().DispatchedAt = Stamp(now)
	n.delivery().Reruns = n.Delivery.Reruns + 1
	what := describeTarget(n.Pending.Target)
	return n, Commit{Subject: Subject{Kind: KindRerun, Row: n.Pending.Target}.String(),
		Sentence: fmt.Sprintf("The agent of %s (iteration %d) ended without answering, killed or never started with its reconciler; the same dispatch runs again without a new count.", what, n.Iterations)}
}
