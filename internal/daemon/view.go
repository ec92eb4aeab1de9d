package daemon

import (
	"context"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/reconcile"
	"github.com/gallivant/gallivant/specs"
)

// historyLimit bounds the commits an entry page lists.
const historyLimit = 30

// View is the control repository as the last pass left it, in the shape
// the dashboard and the webhook filter read. Its statuses are read inside
// the daemon's pass slot and its histories after the slot is released,
// from a store.HistoryReader opened inside it, so no request ever reads
// the store while a pass writes it and no pass waits for the dashboard.
type View struct {
	// Commit is the control commit the view was read at.
	Commit        string
	ControlBranch string
	// Captured is when the view was read.
	Captured time.Time
	Entries  []Entry
	// Problems are the control repository's error diagnostics.
	Problems []string

	prs      map[string]bool // lower-cased owner/name#n
	branches map[string]bool // lower-cased owner/name, then the branch
}

// Entry is one spec and its ledger as the dashboard shows them.
type Entry struct {
	reconcile.EntryStatus
	// PRURL is the pull request's web address, "" without one.
	PRURL string
	// LessonsURL is the web address of the entry's lessons proposal on
	// the control repository, "" without one.
	LessonsURL string
	// Repo is the target repository of the work branch.
	Repo   string
	Branch string
	// Attempts is the attempts spent over all rows; Rounds the review
	// rounds spent, of MaxRounds.
	Attempts, Iterations int
	Rounds, MaxRounds    int
	// StopAt is when the stop was recorded (the stop commit's time); zero
	// when not stopped or unknown.
	StopAt time.Time
	// Table is the ledger's row table (EntryStatus.Rows counts it).
	Table     []ledger.Row
	Decisions []string
	Delivery  []string
	// Why is `gallivant why`'s explanation.
	Why     []string
	History []store.LogEntry
	// LegLinks are a coordinated entry's legs with their pull requests'
	// web addresses.
	LegLinks []LegLink
	// DispatchedAt is when the outstanding dispatch started; zero
	// without one.
	DispatchedAt time.Time
	// Dispatch is what the page says of the outstanding dispatch, set
	// when a page is rendered (dispatch.go); nil in a captured view.
	Dispatch *DispatchFact
	// Waits and LastProblems are what the last pass noted of the entry:
	// what it waits for, and the problems it hit (AttachNotes).
	Waits, LastProblems []string
	// Decision is the last pull-request decision the last pass took on
	// the entry (CaptureDecided); nil when it took none.
	Decision *reconcile.Decision
}

// AttachNotes puts a pass's notes on the entries they name: waits and
// problems; a problem naming no entry (gallivant.yaml) joins Problems.
func (v *View) AttachNotes(notes []reconcile.Note) {
	for _, n := range notes {
		e, ok := v.Entry(n.Spec)
		switch {
		case ok && n.Problem:
			e.LastProblems = append(e.LastProblems, n.Message)
		case ok:
			e.Waits = append(e.Waits, n.Message)
		case n.Problem:
			v.Problems = append(v.Problems, n.Spec+": "+n.Message)
		}
	}
}

// LegLink is one leg of a coordinated entry as the dashboard shows it.
type LegLink struct {
	reconcile.LegStatus
	// URL is the leg's pull request's web address, "" without one.
	URL string
}

// Capture reads the control repository's head into a view: every entry's
// status and explanation, and each ledger's history from git log. web is
// GitHub's web address (https://github.com/ unless Enterprise) for links.
func Capture(ctx context.Context, st *store.Store, web string, now time.Time) (*View, error) {
	return CaptureDecided(ctx, st, web, now, nil)
}

// CaptureDecided is Capture after a pass that took decisions (the pass's
// Report.Decisions): each entry shows the last decision the pass took on
// it, and its explanation says that decision instead of the recorded
// state alone.
func CaptureDecided(ctx context.Context, st *store.Store, web string, now time.Time, decisions []reconcile.Decision) (*View, error) {
	c, err := startCapture(ctx, st, web, now, decisions)
	if err != nil {
		return nil, err
	}
	return c.finish(ctx)
}

// historian reads the history of many paths in one walk: a
// store.HistoryReader.
type historian interface {
	Logs(ctx context.Context, paths []string, limit int) (map[string][]store.LogEntry, error)
	Close()
}

// capture is a view whose statuses are read and whose histories are
// not yet: startCapture reads what must be read where no pass writes
// (the pass slot), finish the rest anywhere.
type capture struct {
	view    *View
	history historian
}

// startCapture reads the statuses of the control repository's head and
// opens a reader of its history; it must run where no pass writes st.
func startCapture(ctx context.Context, st *store.Store, web string, now time.Time, decisions []reconcile.Decision) (*capture, error) {
	last := map[string]*reconcile.Decision{}
	for i := range decisions {
		// A coordinated entry's legs are decided one by one; its card
		// shows the legs, not one leg's decision as the entry's.
		if decisions[i].Leg == "" {
			last[decisions[i].Spec] = &decisions[i]
		}
	}
	// Without a pass's decisions, an explanation is the recorded state.
	from := "the last pass"
	if decisions == nil {
		from = ""
	}
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	v := &View{Commit: snap.Commit, ControlBranch: snap.Config.Control.Branch, Captured: now, prs: map[string]bool{}, branches: map[string]bool{}}
	for _, d := range snap.Diagnostics {
		if d.Severity == parse.SeverityError {
			v.Problems = append(v.Problems, d.String())
		}
	}
	for _, es := range snap.Statuses() {
		e := Entry{EntryStatus: es, MaxRounds: snap.Config.Defaults.MaxRounds}
		e.Decision = last[es.Spec]
		e.Why = snap.ExplainDecided(es.Spec, e.Decision, from)
		sp := snap.Repo.Specs[es.Spec]
		if sp != nil {
			e.Repo = sp.Repo
		}
		if l := snap.Repo.Ledgers[es.Spec]; l != nil {
			v.ledgerFacts(&e, l, sp)
		}
		v.pullLinks(&e, web)
		v.Entries = append(v.Entries, e)
	}
	h, err := st.HistoryAt()
	if err != nil {
		return nil, err
	}
	return &capture{view: v, history: h}, nil
}

// finish reads every ledger's history in one walk and returns the view.
func (c *capture) finish(ctx context.Context) (*View, error) {
	defer c.history.Close()
	var paths []string
	for _, e := range c.view.Entries {
		if e.Ledger != "" {
			paths = append(paths, e.Ledger)
		}
	}
	logs, err := c.history.Logs(ctx, paths, historyLimit)
	if err != nil {
		return nil, err
	}
	for i := range c.view.Entries {
		if e := &c.view.Entries[i]; e.Ledger != "" {
			entryHistory(e, logs[e.Ledger])
		}
	}
	return c.view, nil
}

// ledgerFacts fills in what entry e's ledger l says (sp is its spec, nil
// when it has none), and records its work branch, in the entry's
// repository and every leg's, as the view's.
func (v *View) ledgerFacts(e *Entry, l *ledger.Ledger, sp *specs.Spec) {
	e.Branch = l.WorkBranch()
	e.Iterations = l.Iterations
	e.Rounds = l.Delivery.Round
	if l.Pending != nil {
		e.DispatchedAt = l.Delivery.DispatchedAt
	}
	e.Table = l.Rows
	for _, r := range l.Rows {
		e.Attempts += r.Attempts
	}
	for _, d := range l.Decisions {
		e.Decisions = append(e.Decisions, d.Line)
	}
	if l.Delivery != nil {
		e.Delivery = l.Delivery.Lines()
	}
	if e.Repo != "" {
		v.branches[strings.ToLower(e.Repo)+" "+e.Branch] = true
	}
	if sp != nil {
		// A coordinated spec's legs share the work branch name.
		for _, leg := range sp.Legs {
			v.branches[strings.ToLower(leg.Repo)+" "+e.Branch] = true
		}
	}
}

// pullLinks links entry e's pull request and its legs' on GitHub's web
// address web, and records them as the view's.
func (v *View) pullLinks(e *Entry, web string) {
	prURL := func(pr string) string {
		repo, n, _ := strings.Cut(pr, "#")
		return strings.TrimRight(web, "/") + "/" + repo + "/pull/" + url.PathEscape(n)
	}
	if e.PR != "" {
		v.prs[strings.ToLower(e.PR)] = true
		e.PRURL = prURL(e.PR)
	}
	if ls := e.Lessons; ls != nil && ls.Proposal != "" {
		// A lessons proposal's merge or close triggers a pass too.
		v.prs[strings.ToLower(ls.Proposal)] = true
		e.LessonsURL = prURL(ls.Proposal)
	}
	for _, leg := range e.Legs {
		link := LegLink{LegStatus: leg}
		if leg.PR != "" {
			// A leg's pull request is the entry's too: its webhooks
			// trigger passes.
			v.prs[strings.ToLower(leg.PR)] = true
			link.URL = prURL(leg.PR)
		}
		e.LegLinks = append(e.LegLinks, link)
	}
}

// entryHistory sets entry e's ledger history, and when it is stopped
// the time of its latest stop.
func entryHistory(e *Entry, hist []store.LogEntry) {
	e.History = hist
	if e.Stop == nil {
		return
	}
	for _, h := range hist {
		if s, err := ledger.ParseSubject(h.Subject); err == nil && s.Kind == ledger.KindStop {
			e.StopAt = h.When
			break
		}
	}
}

// OwnsPR reports whether the pull request repo#n is an entry's.
func (v *View) OwnsPR(repo string, n int) bool {
	return v.prs[strings.ToLower(repo)+"#"+strconv.Itoa(n)]
}

// OwnsBranch reports whether branch of repo is an entry's work branch.
func (v *View) OwnsBranch(repo, branch string) bool {
	return branch != "" && v.branches[strings.ToLower(repo)+" "+branch]
}

// Entry returns the entry of a spec path.
func (v *View) Entry(spec string) (*Entry, bool) {
	for i := range v.Entries {
		if v.Entries[i].Spec == spec {
			return &v.Entries[i], true
		}
	}
	return nil, false
}

func itoa(n int) string { return strconv.Itoa(n) }
