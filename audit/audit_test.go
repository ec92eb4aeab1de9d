package audit

import (
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// The fixtures are ledgers of the demo's control repository: running.md
// after row 1 was recorded, stopped.md at the allowance stop of row 2.
func fixture(t *testing.T, name string) []byte {
	t.Helper()
	b, err := os.ReadFile("testdata/" + name)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func mustParse(t *testing.T, b []byte) *ledger.Ledger {
	t.Helper()
	l, ds := ledger.Parse("plans/checkout-ledger.md", b)
	if ledger.Fatal(ds) {
		t.Fatalf("fixture does not parse: %v", ds)
	}
	return l
}

// edit replaces one exact piece of a fixture, failing when it is absent so
// that a forgery cannot silently be a no-op.
func edit(t *testing.T, b []byte, old, new string) []byte {
	t.Helper()
	if !strings.Contains(string(b), old) {
		t.Fatalf("fixture lacks %q", old)
	}
	return []byte(strings.Replace(string(b), old, new, 1))
}

const trailers = "\n\nGallivant-Spec: specs/checkout.md\nGallivant-Control: e882b34f446cf6cc40002192f38e734d9fa309db\n"

func message(subject string, extra ...ledger.Trailer) string {
	m := subject + "\n\nSomething happened." + trailers
	for _, t := range extra {
		m += t.Key + ": " + t.Value + "\n"
	}
	return m
}

// found is what a test pins of a violation: where and about what.
type found struct{ Section, Path string }

func sectionsOf(vs []Violation) []found {
	var out []found
	for _, v := range vs {
		out = append(out, found{v.Section, v.Path})
	}
	return out
}

const lp = "plans/checkout-ledger.md"

// TestPersonForgeries pins L-121: a person's commit that changes a
// reconciler-owned section is reported at that section, with an excerpt.
func TestPersonForgeries(t *testing.T) {
	stopped := fixture(t, "stopped.md")
	for _, tc := range []struct {
		name     string
		old, new string
		section  string
		excerpt  string
	}{
		{"row status flipped", "| 2 | failed | 2 |", "| 2 | done | 2 |", SectionRows,
			"-| 2 | failed | 2 | test -f rows/row-2.txt; FAIL: still missing after attempt 2 |\n+| 2 | done | 2 | test -f rows/row-2.txt; FAIL: still missing after attempt 2 |"},
		{"attempts lowered", "| 2 | failed | 2 |", "| 2 | failed | 1 |", SectionRows, ""},
		{"allowance raised", "allowance: 2\n", "allowance: 40\n", SectionHeader, "-allowance: 2\n+allowance: 40"},
		{"iterations lowered", "iterations: 4\n", "iterations: 1\n", SectionHeader, ""},
		{"decision rewritten", "row 2 failed | attempt 2 did not get there", "row 2 done | attempt 2 did not get there", SectionDecisions, ""},
		{"decision deleted", "row 2 escalated | implModel round | allowed attempts 2\n", "", SectionDecisions,
			"-row 2 escalated | implModel round | allowed attempts 2"},
		{"stop removed", "stop: allowance | row 2 used 2 of 2 attempts\n", "", SectionDelivery, "-stop: allowance | row 2 used 2 of 2 attempts"},
		{"delivery key edited", "branch: gallivant/checkout", "branch: gallivant/elsewhere", SectionDelivery, ""},
		{"delivery key added", "phase: implement\n", "phase: implement\npr: acme/shop#9\n", SectionDelivery, "+pr: acme/shop#9"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			after := edit(t, stopped, tc.old, tc.new)
			r := Check(Change{Commit: "abc", Author: "Mallory <m@example.com>", Message: "Tidy the ledger\n", Path: lp, Before: stopped, After: after})
			if diff := cmp.Diff([]found{{tc.section, lp}}, sectionsOf(r.Violations)); diff != "" {
				t.Fatalf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			v := r.Violations[0]
			if v.Commit != "abc" || v.Author != "Mallory <m@example.com>" || !r.HandEdit || r.Kind != KindPerson {
				t.Errorf("violation lacks its commit, author or kind: %+v (kind %s)", v, r.Kind)
			}
			if tc.excerpt != "" {
				if diff := cmp.Diff(tc.excerpt, v.Excerpt); diff != "" {
					t.Errorf("excerpt (-want +got):\n%s", diff)
				}
			}
		})
	}
}

// TestPersonLegal: request lines (with or without `- `), layout-only
// changes (CRLF) and the accept request are a person's to write.
func TestPersonLegal(t *testing.T) {
	stopped := fixture(t, "stopped.md")
	for _, tc := range []struct {
		name  string
		after []byte
	}{
		{"retry request", edit(t, stopped, "## Requests\n", "## Requests\nretry 2 | look at the README\n")},
		{"dashed rows request", edit(t, stopped, "## Requests\n", "## Requests\n- rows +2 | two more\n")},
		{"accept request", edit(t, stopped, "## Requests\n", "## Requests\naccept | the allowance was raised on purpose\n")},
		{"crlf", []byte(strings.ReplaceAll(string(stopped), "\n", "\r\n"))},
		{"ledger deleted to abandon the entry", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(Change{Commit: "abc", Author: "Dana <d@example.com>", Message: "Ask for more\n", Path: lp, Before: stopped, After: tc.after})
			if len(r.Violations) != 0 || r.HandEdit {
				t.Fatalf("a legal edit was reported: %+v", r.Violations)
			}
		})
	}
}

// TestTransitionsReplay: commits written by the transition functions
// themselves verify, and each forged variant is caught.
func TestTransitionsReplay(t *testing.T) {
	stopped, running := fixture(t, "stopped.md"), fixture(t, "running.md")
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	head := strings.Repeat("a", 40)

	withReq := func(b []byte, line string) []byte { return edit(t, b, "## Requests\n", "## Requests\n"+line+"\n") }
	apply := func(b []byte, line string) ([]byte, ledger.Commit) {
		l := mustParse(t, b)
		r, err := ledger.ParseRequest(line)
		if err != nil {
			t.Fatal(err)
		}
		n, c, err := ledger.ApplyRequest(l, r, now)
		if err != nil {
			t.Fatal(err)
		}
		return ledger.Format(n), c
	}
	retryBefore := withReq(stopped, "retry 2 | read the README first")
	retryAfter, retryCommit := apply(retryBefore, "retry 2 | read the README first")
	raiseBefore := withReq(stopped, "rows +3")
	raiseAfter, raiseCommit := apply(raiseBefore, "rows +3")
	dispatched, dispatchCommit := ledger.Dispatch(mustParse(t, running), ledger.Action{Target: 2, Member: "home"}, head, now)
	stopL, stopCommit := ledger.Stop(mustParse(t, running), ledger.StopNeeds, "row 2 needs a database", 2)
	seedPending, _ := ledger.Dispatch(mustParse(t, running), ledger.Action{Target: ledger.SeedTarget, Member: "home"}, head, now)
	refused, refusedCommit, _, err := ledger.Settle(seedPending, ledger.Observation{RunOver: true, Commits: []ledger.Return{{SHA: strings.Repeat("c", 40), Subject: "wip"}}})
	if err != nil || !strings.HasPrefix(refusedCommit.Subject, "loop: stop seed-refused") {
		t.Fatalf("settle: %v, %q", err, refusedCommit.Subject)
	}

	// A resume of a harness-error stop restarts the dispatch's time; one
	// an older gallivant performed kept the crashed dispatch's time, and
	// both verify.
	early, _ := ledger.Dispatch(mustParse(t, running), ledger.Action{Target: 2, Member: "home"}, head, now.Add(-2*time.Hour))
	harness, _ := ledger.Stop(early, ledger.StopHarnessError, "iteration 0: exit status 139 (log x)", 2)
	harnessBefore := withReq(ledger.Format(harness), "resume | executor fixed")
	harnessAfter, harnessCommit := apply(harnessBefore, "resume | executor fixed")
	harnessOld := mustParse(t, harnessAfter)
	if !harnessOld.Delivery.DispatchedAt.Equal(now) {
		t.Fatalf("the harness-error resume's dispatched-at is %v, want %v", harnessOld.Delivery.DispatchedAt, now)
	}
	harnessOld.Delivery.DispatchedAt = early.Delivery.DispatchedAt
	harnessOldAfter := ledger.Format(harnessOld)

	resumed, resumeCommit, err := ledger.Resumed(mustParse(t, stopped), "the spec exists again")
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2026, 11, 30, 11, 0, 0, 0, time.UTC)
	ops, slack, pager := ledger.Owed{Target: "ops", Event: ledger.EventStop, At: at}, ledger.Owed{Target: "slack", Event: ledger.EventStop, At: at, Tries: 4}, ledger.Owed{Target: "pager", Event: ledger.EventStop, At: at, Tries: 1}
	owing := mustParse(t, running)
	owing.SetOwedNotifications([]ledger.Owed{ops, slack, pager})
	notified, notifyCommit := ledger.Notified(owing, []ledger.NotifyAttempt{
		{Owed: ops, Fate: ledger.NotifyDelivered, MaxTries: 5},
		{Owed: slack, Fate: ledger.NotifyGaveUp, Err: "502 bad gateway", MaxTries: 5},
		{Owed: pager, Fate: ledger.NotifyRetried, Err: "timeout", MaxTries: 5},
	})
	borrowed := notified.Clone()
	borrowed.SetOwedNotifications([]ledger.Owed{{Target: "ops", Event: ledger.EventDone, At: at}})

	for _, tc := range []struct {
		name          string
		msg           string
		before, after []byte
		others        []string
		want          []found
		kind          string
	}{
		{name: "the loop's own resume", msg: resumeCommit.Message(), before: stopped, after: ledger.Format(resumed), kind: "resume"},
		{name: "the loop's own resume of a running entry", msg: resumeCommit.Message(), before: running, after: running,
			want: []found{{SectionDelivery, lp}}, kind: "resume"},
		{name: "a notification round", msg: notifyCommit.Message(), before: ledger.Format(owing), after: ledger.Format(notified), kind: "notify"},
		{name: "a notification round that owes a new notification", msg: notifyCommit.Message(), before: ledger.Format(owing), after: ledger.Format(borrowed),
			want: []found{{SectionDelivery, lp}}, kind: "notify"},
		{name: "retry", msg: retryCommit.Message(), before: retryBefore, after: retryAfter, kind: "retry"},
		{name: "raise allowance", msg: raiseCommit.Message(), before: raiseBefore, after: raiseAfter, kind: "raise allowance"},
		{name: "resume of a harness error", msg: harnessCommit.Message(), before: harnessBefore, after: harnessAfter, kind: "resume"},
		{name: "resume of a harness error that kept the dispatch's time (an older gallivant)", msg: harnessCommit.Message(), before: harnessBefore, after: harnessOldAfter, kind: "resume"},
		{name: "dispatch", msg: dispatchCommit.Message(), before: running, after: ledger.Format(dispatched), kind: "dispatch"},
		{name: "stop", msg: stopCommit.Message(), before: running, after: ledger.Format(stopL), kind: "stop"},
		{name: "seed refused", msg: refusedCommit.Message(), before: ledger.Format(seedPending), after: ledger.Format(refused), kind: "stop"},
		{name: "allowance stop that drops the dispatch", msg: message("loop: stop allowance"), before: ledger.Format(seedPending),
			after: ledger.Format(func() *ledger.Ledger {
				l, _ := ledger.Stop(mustParse(t, running), ledger.StopAllowance, "x", 0)
				return l
			}()), want: []found{{SectionHeader, lp}, {SectionDelivery, lp}}, kind: "stop"},
		{name: "raise allowance without a request", msg: message("loop: raise allowance"), before: stopped,
			after: edit(t, stopped, "allowance: 2\n", "allowance: 5\n"), want: []found{{SectionTrailers, lp}}, kind: "raise allowance"},
		{name: "raise allowance by more than asked", msg: raiseCommit.Message(), before: raiseBefore,
			after: edit(t, raiseAfter, "allowance: 5\n", "allowance: 50\n"), want: []found{{SectionHeader, lp}}, kind: "raise allowance"},
		{name: "retry that also lowers attempts", msg: retryCommit.Message(), before: retryBefore,
			after: edit(t, retryAfter, "| 2 | failed | 2 |", "| 2 | failed | 0 |"), want: []found{{SectionRows, lp}}, kind: "retry"},
		{name: "dispatch subject on a status flip", msg: dispatchCommit.Message(), before: running,
			after: edit(t, running, "| 2 | open | 0 |", "| 2 | done | 0 |"), want: []found{{SectionHeader, lp}}, kind: "dispatch"},
		{name: "dispatch of another row", msg: message("loop: dispatch row 1", ledger.Trailer{Key: ledger.TrailerHead, Value: head}), before: running,
			after: ledger.Format(dispatched), want: []found{{SectionHeader, lp}}, kind: "dispatch"},
		{name: "stop subject that also marks a row done", msg: stopCommit.Message(), before: running,
			after: edit(t, ledger.Format(stopL), "| 2 | open | 0 |", "| 2 | done | 0 |"), want: []found{{SectionRows, lp}}, kind: "stop"},
		{name: "resume subject removing a stop without a request", msg: message("loop: resume", ledger.Trailer{Key: ledger.TrailerRequest, Value: "resume | because"}), before: stopped,
			after: edit(t, stopped, "stop: allowance | row 2 used 2 of 2 attempts\n", ""), want: []found{{SectionRequests, lp}}, kind: "resume"},
		{name: "unknown transition", msg: message("loop: spend budget"), before: running, after: running,
			want: []found{{SectionSubject, lp}}, kind: KindUnknown},
		{name: "transition touching another file", msg: dispatchCommit.Message(), before: running, after: ledger.Format(dispatched),
			others: []string{"specs/checkout.md"}, want: []found{{SectionFiles, lp}}, kind: "dispatch"},
		{name: "transition deleting the ledger", msg: dispatchCommit.Message(), before: running, after: nil,
			want: []found{{SectionLedger, lp}}, kind: "dispatch"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := Check(Change{Commit: "c0ffee", Author: "gallivant <g@example.com>", Message: tc.msg, Path: lp, Before: tc.before, After: tc.after, Others: tc.others})
			if diff := cmp.Diff(tc.want, sectionsOf(r.Violations)); diff != "" {
				t.Errorf("violations (-want +got):\n%s\n%+v", diff, r.Violations)
			}
			if r.Kind != tc.kind {
				t.Errorf("kind = %q, want %q", r.Kind, tc.kind)
			}
		})
	}
}

// TestUnknownTransitionMessage: a subject no rule knows is reported as an
// unknown transition, so that a new transition needs a rule to merge.
func TestUnknownTransitionMessage(t *testing.T) {
	running := fixture(t, "running.md")
	r := Check(Change{Commit: "c", Message: "loop: notify slack\n", Path: lp, Before: running, After: running})
	if len(r.Violations) != 1 || !strings.Contains(r.Violations[0].Message, "unknown transition") {
		t.Fatalf("got %+v", r.Violations)
	}
}

// TestAcceptMakesHandEditLegal walks a history: a person's forged
// allowance, the tampered stop, the person's accept request and the
// reconciler's accept. The hand edit is reported as accepted, not failing.
func TestAcceptMakesHandEditLegal(t *testing.T) {
	stopped := fixture(t, "stopped.md")
	forged := edit(t, stopped, "allowance: 2\n", "allowance: 40\n")
	tl, tc := ledger.Stop(mustParse(t, forged), ledger.StopTampered, "a person edited the header since the last loop: commit", 0)
	tampered := ledger.Format(tl)
	asked := edit(t, tampered, "## Requests\n", "## Requests\naccept | raised on purpose\n")
	r, _ := ledger.ParseRequest("accept | raised on purpose")
	al, ac, err := ledger.ApplyRequest(mustParse(t, asked), r, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	history := []Commit{
		{SHA: "1", Author: "Mallory", Message: "Raise it\n", Ledgers: []Change{{Path: lp, Before: stopped, After: forged}}},
		{SHA: "2", Author: "gallivant", Message: tc.Message(), Ledgers: []Change{{Path: lp, Before: forged, After: tampered}}},
		{SHA: "3", Author: "Dana", Message: "Accept it\n", Ledgers: []Change{{Path: lp, Before: tampered, After: asked}}},
		{SHA: "4", Author: "gallivant", Message: ac.Message(), Ledgers: []Change{{Path: lp, Before: asked, After: ledger.Format(al)}}},
	}
	v := NewVerifier()
	for i, c := range history {
		v.Add(c)
		if i == 0 && v.Report().Legal() {
			t.Fatal("the hand edit is legal before any accept")
		}
	}
	rep := v.Report()
	if !rep.Legal() {
		t.Fatalf("violations after accept: %+v", rep.Violations)
	}
	if len(rep.Accepted) != 1 || rep.Accepted[0].Commit != "1" || rep.Accepted[0].Section != SectionHeader {
		t.Fatalf("accepted = %+v, want the header edit of commit 1", rep.Accepted)
	}
	want := "verified 4 commits: 2 transitions (accept 1, stop 1), 2 by people, 0 violations, 1 accepted hand edits"
	if diff := cmp.Diff(want, rep.Summary()); diff != "" {
		t.Errorf("summary (-want +got):\n%s", diff)
	}
}

// TestLoopCommitWithoutLedger: a loop: subject on a commit that changes no
// ledger is a violation.
func TestLoopCommitWithoutLedger(t *testing.T) {
	v := NewVerifier()
	v.Add(Commit{SHA: "1", Author: "Mallory", Message: "loop: record home row 2\n", Others: []string{"specs/checkout.md"}})
	v.Add(Commit{SHA: "2", Author: "Dana", Message: "Edit the spec\n", Others: []string{"specs/checkout.md"}})
	rep := v.Report()
	if diff := cmp.Diff([]found{{SectionFiles, ""}}, sectionsOf(rep.Violations)); diff != "" {
		t.Fatalf("(-want +got):\n%s", diff)
	}
	if rep.Violations[0].Commit != "1" {
		t.Errorf("reported at %s, want 1", rep.Violations[0].Commit)
	}
}

// TestDocsListEveryTransition keeps docs/verify.md's table in step with
// the rules: every kind the checker knows is named there.
func TestDocsListEveryTransition(t *testing.T) {
	doc, err := os.ReadFile("../docs/verify.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, k := range Kinds() {
		if !strings.Contains(string(doc), k) {
			t.Errorf("docs/verify.md does not name the %q transition", k)
		}
	}
}
