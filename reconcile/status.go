package reconcile

import (
	"context"
	"fmt"
	"sort"
	"strings"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Snapshot is the control repository at one commit, parsed.
type Snapshot struct {
	Commit      string
	Config      *specs.Config
	Repo        *ledger.Repo
	Diagnostics parse.Diagnostics
	// NoConfig is set when the commit has no gallivant.yaml: the defaults
	// apply, and the repository may be no control repository at all.
	NoConfig bool
}

// Load syncs the store and parses every document at its head.
func Load(ctx context.Context, st *store.Store) (*Snapshot, error) {
	if err := st.Sync(ctx); err != nil {
		return nil, err
	}
	snap := &Snapshot{Commit: st.Head(), Config: specs.DefaultConfig()}
	data, ok, err := st.ReadFile(ctx, st.Head(), specs.ConfigFile)
	if err != nil {
		return nil, err
	}
	if ok {
		var ds parse.Diagnostics
		snap.Config, ds = specs.ParseConfig(specs.ConfigFile, data)
		snap.Diagnostics = append(snap.Diagnostics, ds...)
	} else {
		snap.NoConfig = true
	}
	files, ds, err := st.Files(ctx, snap.Config.ScanDirs())
	if err != nil {
		return nil, err
	}
	snap.Diagnostics = append(snap.Diagnostics, ds...)
	var lds parse.Diagnostics
	snap.Repo, lds = ledger.LoadWith(snap.Config, files, ledger.Parsers{Parsers: specs.Parsers{Source: st.SourceReader(ctx, st.Tip())}})
	snap.Diagnostics = append(snap.Diagnostics, lds...)
	return snap, nil
}

// Resolve finds the spec a person means: a spec path, a ledger path, or a
// spec's file name with or without .md.
func (s *Snapshot) Resolve(name string) (string, error) {
	name = strings.TrimPrefix(name, "./")
	if _, ok := s.Repo.Specs[name]; ok {
		return name, nil
	}
	for sp, lp := range s.Repo.LedgerPaths {
		if lp == name {
			return sp, nil
		}
	}
	for lp, sp := range s.Repo.Orphans {
		if lp == name || sp == name {
			return sp, nil
		}
	}
	var matches []string
	for _, sp := range s.Repo.SpecPaths() {
		if specs.Stem(sp) == strings.TrimSuffix(name, ".md") {
			matches = append(matches, sp)
		}
	}
	switch len(matches) {
	case 1:
		return matches[0], nil
	case 0:
		return "", fmt.Errorf("no spec named %q in the control repository", name)
	}
	return "", fmt.Errorf("%q names several specs: %s", name, strings.Join(matches, ", "))
}

// RowCounts counts a ledger's rows by status.
type RowCounts struct {
	Done   int `json:"done"`
	Failed int `json:"failed"`
	Open   int `json:"open"`
	Cut    int `json:"cut"`
	Total  int `json:"total"`
}

// StopStatus is an entry's stop and the requests that clear it.
type StopStatus struct {
	Reason string   `json:"reason"`
	Detail string   `json:"detail"`
	Clear  []string `json:"clear"`
}

// RequestStatus is one request line and what the state makes of it.
type RequestStatus struct {
	Line  string `json:"line"`
	State string `json:"state"` // accepted, refused, malformed
	Why   string `json:"why,omitempty"`
}

// EntryStatus is what `gallivant status` shows of one spec.
type EntryStatus struct {
	Spec     string          `json:"spec"`
	Ledger   string          `json:"ledger,omitempty"`
	Status   string          `json:"status"` // the spec's status
	Phase    string          `json:"phase"`
	Rows     RowCounts       `json:"rows"`
	Glyphs   string          `json:"glyphs"`
	Pending  string          `json:"pending,omitempty"`
	PR       string          `json:"pr,omitempty"`
	Stop     *StopStatus     `json:"stop,omitempty"`
	Requests []RequestStatus `json:"requests,omitempty"`
	Chain    string          `json:"chain,omitempty"`
	Problem  string          `json:"problem,omitempty"`
	// Spent is what the entry's admitted returns reported spending;
	// Budget the spec's budget: plus what requests granted.
	Spent  string `json:"spent,omitempty"`
	Budget string `json:"budget,omitempty"`
	// Legs are a coordinated entry's pull requests, one per leg.
	Legs []LegStatus `json:"legs,omitempty"`

	// Paused says who paused the entry from which pull request, `paused
	// by @bob from acme/api#3` ("" when no `/gallivant pause` holds it).
	Paused string `json:"paused,omitempty"`

	// Performed are the requests the entry's newest transitions
	// performed, newest first, with where each came from; only `status
	// SPEC` reads the control history for them (status_requests.go).
	Performed []PerformedRequest `json:"performed,omitempty"`
	// Waves are a planned entry's `## Tasks` by wave, one line a wave
	// (ledger.WaveLines); empty without tasks.
	Waves []string `json:"waves,omitempty"`
	// Lessons is a done entry's learn task (docs/learning.md "The learn
	// task"); nil before one is dispatched.
	Lessons *LessonsStatus `json:"lessons,omitempty"`
}

// LessonsStatus is where a done entry's learn task stands: its state
// (ledger.LearnState), the lessons pull request on the control repository
// and how many candidate lessons it proposes, and the state in words.
type LessonsStatus struct {
	State      string `json:"state"`
	Proposal   string `json:"proposal,omitempty"`
	Candidates int    `json:"candidates,omitempty"`
	Words      string `json:"words"`
}

// lessonsStatus says a ledger's learn task, nil without one.
func lessonsStatus(l *ledger.Ledger) *LessonsStatus {
	lr := l.Delivery.Learn
	if lr.IsZero() {
		return nil
	}
	ls := &LessonsStatus{State: string(lr.State), Candidates: len(lr.Candidates)}
	if !lr.PR.IsZero() {
		ls.Proposal = lr.PR.String()
	}
	switch lr.State {
	case ledger.LearnDispatched:
		ls.Words = "learn task dispatched " + ledger.TimeText(lr.At)
	case ledger.LearnNone:
		ls.Words = "the learn task proposed no lessons"
	case ledger.LearnRefused:
		ls.Words = "the learn task's return was refused; it is dispatched once more"
		if lr.Final() {
			ls.Words = fmt.Sprintf("the learn task's return was refused on its last attempt (%d of %d)", lr.Attempts(), ledger.MaxLearnAttempts)
		}
	case ledger.LearnProposed:
		ls.Words = fmt.Sprintf("%s proposed in %s, waiting for a person to merge or close it", countOf(len(lr.Candidates), "lesson"), lr.PR)
	case ledger.LearnMerged:
		ls.Words = fmt.Sprintf("%s approved in %s", countOf(len(lr.Candidates), "lesson"), lr.PR)
	case ledger.LearnDeclined:
		ls.Words = fmt.Sprintf("%s declined in %s, never proposed again", countOf(len(lr.Candidates), "lesson"), lr.PR)
	}
	return ls
}

// Statuses returns every entry's status, sorted by spec path.
func (s *Snapshot) Statuses() []EntryStatus {
	var out []EntryStatus
	for _, sp := range s.Repo.SpecPaths() {
		out = append(out, s.Status(sp))
	}
	for lp, sp := range s.Repo.Orphans {
		if _, ok := s.Repo.Specs[sp]; !ok {
			st := s.Status(sp)
			st.Ledger = lp
			out = append(out, st)
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Spec < out[j].Spec })
	return out
}

// Status returns one entry's status.
func (s *Snapshot) Status(spec string) EntryStatus {
	es := EntryStatus{Spec: spec, Phase: "not seeded", Ledger: s.Repo.LedgerPaths[spec]}
	if sp := s.Repo.Specs[spec]; sp != nil {
		es.Status = string(sp.Status)
	} else {
		es.Status = "gone"
	}
	if s.Repo.Invalid[spec] {
		es.Problem = "the spec has errors (gallivant check)"
	}
	if cp, ok := s.Repo.ChainOf[spec]; ok {
		es.Chain = fmt.Sprintf("%s %d/%d", cp.Chain.Path, cp.K, len(cp.Chain.Milestones))
	}
	if _, broken := s.Repo.Broken[es.Ledger]; broken {
		es.Problem = "the ledger has grammar errors (gallivant check)"
		es.Phase = "broken"
		return es
	}
	l := s.Repo.Ledgers[spec]
	if l == nil {
		for lp, sp := range s.Repo.Orphans {
			if sp == spec {
				es.Ledger = lp
			}
		}
		return es
	}
	es.Phase = string(l.Phase())
	es.PR = l.Delivery.PRText()
	if spent := l.Delivery.Spent; spent != (specs.Amount{}) {
		es.Spent = spent.String()
	}
	if b, ok := l.Budget(s.Repo.Specs[spec]); ok {
		es.Budget = b.String()
	}
	es.Legs = legStatuses(l, s.Repo.Specs[spec])
	if v := l.Delivery.Unavailable; v != "" && es.Problem == "" {
		es.Problem = "the agent could not run, so its dispatch was withdrawn (" + v + "); it is dispatched again once the agent works"
	}
	es.Rows, es.Glyphs = rowCounts(l)
	es.Waves = ledger.WaveLines(l.Tasks)
	if pd := l.Pending; pd != nil {
		es.Pending = pd.String()
	}
	if reason, detail, stopped := l.Stop(); stopped {
		es.Stop = &StopStatus{Reason: string(reason), Detail: detail, Clear: ledger.ClearingRequests(reason)}
		if es.Stop.Clear == nil {
			// JSON consumers read an empty list, never null.
			es.Stop.Clear = []string{}
		}
	}
	if pause, ok := l.Paused(); ok {
		es.Paused = pause.Describe()
	}
	es.Requests = requestStatuses(l)
	es.Lessons = lessonsStatus(l)
	return es
}

// rowCounts counts the rows by status and draws them as glyphs, the
// pending dispatch's row as an arrow.
func rowCounts(l *ledger.Ledger) (RowCounts, string) {
	var rc RowCounts
	var glyphs strings.Builder
	for _, r := range l.Rows {
		rc.Total++
		g := "○"
		switch r.Status {
		case ledger.Done:
			rc.Done++
			g = "✓"
		case ledger.Failed:
			rc.Failed++
			g = "✗"
		case ledger.Cut:
			rc.Cut++
			g = "⊘"
		default:
			rc.Open++
		}
		if l.Pending != nil && l.Pending.Target == r.N {
			g = "→"
		}
		glyphs.WriteString(g)
	}
	return rc, glyphs.String()
}

// requestStatuses says of each request line whether the next pass
// performs it, and why not when it does not.
func requestStatuses(l *ledger.Ledger) []RequestStatus {
	var out []RequestStatus
	for _, rs := range l.RequestStates() {
		r := RequestStatus{Line: rs.Request.Line, State: "accepted"}
		switch {
		case rs.Err != nil:
			r.State, r.Why = "malformed", rs.Err.Error()
		case rs.Refusal != "":
			r.State, r.Why = "refused", rs.Refusal
		}
		out = append(out, r)
	}
	return out
}

// explainUnseeded says what happens to a spec that has no ledger.
func (s *Snapshot) explainUnseeded(spec string, es EntryStatus) string {
	sp := s.Repo.Specs[spec]
	switch {
	case sp == nil:
		return "the spec does not exist"
	case sp.Status != specs.StatusActive:
		return fmt.Sprintf("nothing happens while the spec is %s", sp.Status)
	case es.Problem != "":
		return "next: nothing until the spec is fixed"
	case !sp.PR.IsZero():
		return fmt.Sprintf("next: adopt %s: seed %s on its head branch, once the next pass finds gallivant may push to it (unless a chain predecessor is unmerged)", sp.PR, s.Config.LedgerPath(spec))
	}
	return fmt.Sprintf("next: seed %s (the next pass creates the ledger, unless a chain predecessor is unmerged)", s.Config.LedgerPath(spec))
}

// Explain says, for `gallivant why`, what an entry is doing and why:
// its state, its last decisions, what it waits for and its next action.
// It reads the control repository only: where a pull request stands is
// the last recorded state, and it says so.
func (s *Snapshot) Explain(spec string) []string { return s.ExplainDecided(spec, nil, "") }

// ExplainDecided is Explain with the pull-request loop's decision on the
// entry, taken by the pass's own looks (Decision): from names where it
// comes from, "observed now" for `gallivant why --live`, "the last pass"
// for the dashboard. d is nil when no decision was taken; then the
// pull-request lines are the last recorded state.
func (s *Snapshot) ExplainDecided(spec string, d *Decision, from string) []string {
	es := s.Status(spec)
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	add("%s: %s, phase %s", spec, es.Status, es.Phase)
	if es.Chain != "" {
		add("chain: milestone %s", es.Chain)
	}
	if es.Problem != "" {
		add("problem: %s", es.Problem)
	}
	l := s.Repo.Ledgers[spec]
	if l == nil {
		return append(out, s.explainUnseeded(spec, es))
	}
	add("rows: %s  %d done, %d failed, %d open, %d cut", es.Glyphs, es.Rows.Done, es.Rows.Failed, es.Rows.Open, es.Rows.Cut)
	add("iterations: %d, allowance: %d", l.Iterations, l.Allowance)
	if es.Spent != "" || es.Budget != "" {
		add("spent: %s", spendLine(es))
	}
	for _, r := range l.Rows {
		if r.Status.Unresolved() {
			add("  row %d: %d of %d attempts", r.N, r.Attempts, l.EffectiveAllowance(r.N))
		}
	}
	if len(es.Waves) > 0 {
		add("waves (a task's attempts in parentheses, %d allowed):", l.Allowance)
		for _, w := range es.Waves {
			add("  %s", w)
		}
	}
	decisions := l.Decisions
	if len(decisions) > 5 {
		decisions = decisions[len(decisions)-5:]
	}
	if len(decisions) > 0 {
		add("last decisions:")
		for _, d := range decisions {
			add("  %s", d.Line)
		}
	}
	if d, ok := l.PreviousDecision(); ok {
		add("previous decision for the next dispatch: %s", d.Line)
	}
	if es.Stop != nil {
		add("stopped: %s (%s)", es.Stop.Reason, es.Stop.Detail)
		if len(es.Stop.Clear) > 0 {
			add("cleared by a request under ## Requests in %s: %s", es.Ledger, strings.Join(es.Stop.Clear, " or "))
		} else {
			add("no request clears it: %s", ledger.Recommendation(l, ledger.StopReason(es.Stop.Reason), 0))
		}
	}
	for _, o := range l.OwedNotifications() {
		add("notification owed: %s to %s (%d failed tries so far)", o.Event, o.Target, o.Tries)
	}
	if v := l.Delivery.NotifyFailed.String(); v != "" {
		add("notification given up: %s", v)
	}
	for _, r := range es.Requests {
		if r.State != "accepted" {
			add("request %q is %s: %s", r.Line, r.State, r.Why)
		} else {
			add("request %q will be performed by the next pass", r.Line)
		}
	}
	if es.Paused != "" {
		add("%s", es.Paused)
		add("next: nothing until `/gallivant unpause` on %s: no agent starts and no review round runs", es.PR)
		return out
	}
	return append(out, s.explainNext(spec, l, d, from)...)
}

// explainNext says what the next pass does with the entry: the row loop's
// next action (ledger.Next), or where its pull requests stand.
func (s *Snapshot) explainNext(spec string, l *ledger.Ledger, d *Decision, from string) []string {
	var out []string
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	waves, ok := s.explainWaves(spec, l)
	if ok {
		return waves
	}
	out = append(out, waves...)
	settings := ledger.Settings{EscalateAfter: s.Config.Defaults.EscalateAfter, EscalationModel: s.Config.Executor.EscalationModel, Allowance: s.Config.Defaults.Allowance}
	a := ledger.Next(l, settings)
	switch a.Kind {
	case ledger.ActNone:
		add("next: nothing until a request clears the stop")
	case ledger.ActSettle:
		add("waits for: the return of %s on %s (dispatched %s); then it is admitted or refused", describe(*l.Pending), l.Delivery.Branch, ledger.TimeText(l.Delivery.DispatchedAt))
	case ledger.ActMigrate:
		add("next: replace the legacy cap: header by allowance: %d", s.Config.Defaults.Allowance)
	case ledger.ActVerify:
		lines := append(s.explainDelivery(l, d, from), s.explainProof(spec, l)...)
		if sp := s.Repo.Specs[spec]; sp != nil && sp.Coordinated() {
			lines = s.explainLegs(l, sp)
		}
		for _, line := range lines {
			add("%s", line)
		}
	case ledger.ActStop:
		add("next: stop %s (%s)", a.Reason, a.Detail)
	case ledger.ActEscalate:
		if a.Model == "" {
			add("next: escalate row %d; with no executor.escalation_model its next attempt runs on the default model", a.Target)
		} else {
			add("next: escalate row %d; its next attempt runs on %s", a.Target, a.Model)
		}
	case ledger.ActDispatch:
		if a.Target == ledger.SeedTarget {
			add("next: dispatch the seed of %s", a.Member)
		} else {
			add("next: dispatch row %d to %s", a.Target, a.Member)
		}
	}
	return out
}

// explainWaves says what the next pass does with a waves entry whose
// tasks come before its rows (waves.go): the current wave's dispatch, the
// tasks it waits for, its stop, or the rows the last wave's tests close
// by replay. ok is false when the rows come next: the entry has no task
// left to run, or the executor runs no tasks (its tasks stay open and the
// rows are delivered as for any spec, which the line before says).
func (s *Snapshot) explainWaves(spec string, l *ledger.Ledger) (out []string, ok bool) {
	if _, _, stopped := l.Stop(); len(l.Tasks) == 0 || stopped || l.Phase() == ledger.PhaseDone {
		return nil, false
	}
	add := func(format string, args ...any) { out = append(out, fmt.Sprintf(format, args...)) }
	a := ledger.NextWave(l.Tasks, s.Config.Executor.MaxParallel, l.Allowance)
	if a.Kind != ledger.WaveNone && !specs.RunsTasks(s.Config.Executor.Kind) {
		add("tasks: executor.kind %s runs no plan tasks; they stay open and the rows are delivered as for any spec", s.Config.Executor.Kind)
		return out, false
	}
	last := l.Tasks[len(l.Tasks)-1].Wave
	switch a.Kind {
	case ledger.WaveNone:
		if l.Pending != nil {
			return nil, false
		}
		checks := ledger.CloseChecks(l, s.Repo.Specs[spec], s.Repo.PlanFor(spec))
		if len(checks) == 0 {
			return nil, false
		}
		for _, c := range checks {
			add("next: close rows by replay: %s on the work branch's head for row %s (the last wave is in)", "`"+c.Command+"`", joinInts(c.Rows))
		}
		add("then: the rows whose replay fails or selects no test go to the row loop")
	case ledger.WaveStop:
		add("next: stop allowance (wave %d cannot finish: %s)", a.Wave, a.Detail)
	case ledger.WaveSettle:
		add("waits for: the returns of task %s (wave %d of %d); then each is admitted and applied in plan order", strings.Join(a.Pending, ", "), a.Wave, last)
	case ledger.WaveDispatch:
		if len(a.Pending) > 0 {
			add("waits for: the returns of task %s (wave %d of %d)", strings.Join(a.Pending, ", "), a.Wave, last)
		}
		add("next: dispatch task %s of wave %d of %d (executor.max_parallel %d tasks run at once); the rows come after the last wave", strings.Join(a.Dispatch, ", "), a.Wave, last, max(1, s.Config.Executor.MaxParallel))
	}
	if a.Kind != ledger.WaveNone {
		out = append(out, taskRefusals(l, a.Wave)...)
	}
	return out, true
}

// taskRefusals says why the current wave's tasks were last refused
// (ledger.TaskRefusal): the ledger's task line holds no reason, its
// decision does.
func taskRefusals(l *ledger.Ledger, wave int) []string {
	var out []string
	for _, t := range l.Tasks {
		if d, ok := l.TaskRefusal(t.ID); ok && t.Wave == wave {
			out = append(out, fmt.Sprintf("refused: task %s, attempt %d: %s", t.ID, d.Attempt, d.Slot2))
		}
	}
	return out
}

// joinInts writes 1, 2 and 3 as "1, 2, 3".
func joinInts(ns []int) string {
	parts := make([]string, len(ns))
	for i, n := range ns {
		parts[i] = fmt.Sprint(n)
	}
	return strings.Join(parts, ", ")
}

// explainDelivery says where an entry whose rows are all closed stands in
// the pull-request phases: the decision d when one was taken (from says
// where), else the last recorded state.
func (s *Snapshot) explainDelivery(l *ledger.Ledger, d *Decision, from string) []string {
	out := s.deliveryFacts(l)
	if d != nil && l.Phase() != ledger.PhaseDone {
		out = append(out, d.Line(from))
		if d.Ignored != "" {
			// Strangers' feedback makes no commit: the decision is the
			// one place a person reads it.
			out = append(out, d.Ignored)
		}
		return out
	}
	out = append(out, s.recordedNext(l))
	switch {
	case l.Phase() == ledger.PhaseDone:
	case from != "":
		out = append(out, fmt.Sprintf("decision (%s): none to take yet; the next pass starts from the recorded state above", from))
	default:
		out = append(out, "decision: the last recorded state, read from the control repository only; `gallivant why --live` observes GitHub and takes the next pass's decision")
	}
	return out
}

// deliveryFacts are the recorded facts of an entry's pull request: its
// number, head and round, the reviewer clock, ignored feedback and a
// failing write.
func (s *Snapshot) deliveryFacts(l *ledger.Ledger) []string {
	d := l.Delivery
	pr := d.PRText()
	var out []string
	if pr != "" {
		out = append(out, fmt.Sprintf("pull request: %s, head %s, round %d of %d", pr, short(d.Head), d.Round, s.Config.Defaults.MaxRounds))
		if rc := s.Config.Reviewer; rc != nil && !d.ReviewerAsked.IsZero() {
			out = append(out, fmt.Sprintf("reviewer: @%s asked %s", rc.Login, ledger.TimeText(d.ReviewerAsked)))
		}
	}
	if v := d.Ignored; v != "" {
		what, why, _ := strings.Cut(v, " | ")
		out = append(out, fmt.Sprintf("ignored feedback: %s (%s)", what, why))
	}
	if v := d.Retry.String(); v != "" {
		out = append(out, fmt.Sprintf("failing write: %s (the %dth failure in a row stops the entry stuck)", v, 5))
	}
	return out
}

// recordedNext is what the recorded state says comes next in the
// pull-request phases.
func (s *Snapshot) recordedNext(l *ledger.Ledger) string {
	d := l.Delivery
	pr := d.PRText()
	switch {
	case l.Phase() == ledger.PhaseDone && pr == "":
		return "done: nothing to deliver, so no pull request was opened"
	case l.Phase() == ledger.PhaseDone:
		return fmt.Sprintf("done: %s is merged", pr)
	case pr == "":
		return "next: open a pull request from the work branch with the identity block and the receipt"
	case !d.DispatchedAt.IsZero():
		return fmt.Sprintf("waits for: round %d (dispatched %s) to push to the work branch", d.Round, ledger.TimeText(d.DispatchedAt))
	case !d.Owed.IsZero():
		return fmt.Sprintf("next: post the owed %s on %s", d.Owed.String(), pr)
	case l.Phase() == ledger.PhaseReady:
		return fmt.Sprintf("ready: %s carries the %s label and waits for a person to merge it; a new head or new feedback takes it out of ready", pr, s.Config.Labels.Ready)
	default:
		return fmt.Sprintf("next: judge %s each pass: a round for new feedback or failing checks; ready when checks are green, the reviewer is clear and the completion gate passes", pr)
	}
}

// spendLine renders what an entry spent against its budget.
func spendLine(es EntryStatus) string {
	spent := es.Spent
	if spent == "" {
		spent = "nothing reported"
	}
	if es.Budget == "" {
		return spent + " (no budget)"
	}
	return spent + " of a budget of " + es.Budget
}

// SpendLine is what status and why print of an entry's spending, "" when
// it reported none and has no budget.
func (es EntryStatus) SpendLine() string {
	if es.Spent == "" && es.Budget == "" {
		return ""
	}
	return spendLine(es)
}
