package ledger

import (
	"strings"
	"testing"
	"time"
)

// L-82: every stop's recommendation names a request that parses and that
// clears exactly that stop, once its placeholders are filled in; a `none`
// recommendation belongs only to a stop that no request clears.
func TestEveryRecommendationClearsItsStop(t *testing.T) {
	for _, reason := range StopReasons() {
		t.Run(string(reason), func(t *testing.T) {
			l := ledgerOf(t, 4, []string{"failed/4", "done/1"}, seeded, "row 1 failed | a | b")
			l.Pending = nil
			if reason == StopInterrupted {
				l.Pending = &Pending{Target: 1, Member: "home", SHA: shaA}
			}
			stopped, _ := Stop(l, reason, "detail", 1)
			rec := Recommendation(stopped, reason, 1)
			form, why, ok := strings.Cut(rec, " - ")
			if !ok || strings.TrimSpace(why) == "" {
				t.Fatalf("recommendation %q is not `<request> - <why>`", rec)
			}
			if form == "none" {
				if got := ClearingRequests(reason); len(got) != 0 {
					t.Errorf("recommends none but %v clear it", got)
				}
				return
			}
			line := "- " + strings.NewReplacer("<hint>", "use the v2 client", "<why>", "a person looked").Replace(form)
			req, err := ParseRequest(line)
			if err != nil {
				t.Fatalf("recommended request %q does not parse: %v", line, err)
			}
			stopped.Requests = append(stopped.Requests, line)
			if req.Kind == RequestResnapshot {
				// The reconciler applies it through Amend with the edited
				// spec; here it must be accepted at this stop.
				if st := stopped.RequestStates()[0]; st.Err != nil || st.Refusal != "" {
					t.Errorf("%q is not accepted: %v %s", line, st.Err, st.Refusal)
				}
				return
			}
			n, _, err := ApplyRequest(stopped, req, time.Date(2026, 11, 30, 0, 0, 0, 0, time.UTC))
			if err != nil {
				t.Fatalf("recommended request %q is refused: %v", line, err)
			}
			if _, _, still := n.Stop(); still {
				t.Errorf("%q left the entry stopped", line)
			}
			if len(n.Requests) != 0 {
				t.Errorf("the request line stayed: %q", n.Requests)
			}
		})
	}
}

// The stop text never recommends `retry 0` (a stop on no row names the
// row the loop would take next).
func TestStagnationRecommendsARealRow(t *testing.T) {
	l := ledgerOf(t, 4, []string{"done/1", "failed/2"}, seeded, "row 2 failed | a | b")
	for _, reason := range []StopReason{StopStagnation, StopMisses} {
		if got := Recommendation(l, reason, 0); !strings.HasPrefix(got, "retry 2 | <hint>") {
			t.Errorf("%s recommends %q, want retry 2", reason, got)
		}
	}
}

// `reopen <n> | <why>` reopens a done row with a hint and one more
// attempt, recorded as a retry decision, and brings a reviewed entry back
// to the row loop.
func TestReopenRequest(t *testing.T) {
	l := ledgerOf(t, 2, []string{"done/1", "done/2"}, seeded, "row 2 done | a | b")
	l.Delivery.Phase = PhaseReady
	line := "- reopen 1 | the evidence only ran the happy path"
	l.Requests = []string{line}
	req, err := ParseRequest(line)
	if err != nil {
		t.Fatal(err)
	}
	n, c, err := ApplyRequest(l, req, time.Time{})
	if err != nil {
		t.Fatal(err)
	}
	row, _ := n.Row(1)
	if row.Status != Open || row.Evidence != ReopenedByRequest || row.Attempts != 1 {
		t.Errorf("row 1 = %+v, want open, %q, attempts kept", *row, ReopenedByRequest)
	}
	if got, want := n.Decisions[len(n.Decisions)-1].Line, "row 1 retry | the evidence only ran the happy path | allowed attempts 3"; got != want {
		t.Errorf("decision %q, want %q", got, want)
	}
	if n.Phase() != PhaseImplement || c.Subject != "loop: reopen row 1" || len(n.Requests) != 0 {
		t.Errorf("phase %s subject %q requests %q", n.Phase(), c.Subject, n.Requests)
	}
	if Next(n, Settings{EscalateAfter: 9}).Target != 1 {
		t.Errorf("the next dispatch does not take the reopened row")
	}
	for _, tt := range []struct{ line, want string }{
		{"- reopen 9 | x", "does not exist"},
		{"- reopen 2 | x", ""},
	} {
		r, _ := ParseRequest(tt.line)
		_, _, err := ApplyRequest(l, r, time.Time{})
		if (err == nil) != (tt.want == "") || (err != nil && !strings.Contains(err.Error(), tt.want)) {
			t.Errorf("%s: err %v, want %q", tt.line, err, tt.want)
		}
	}
	done := l.Clone()
	done.Delivery.Phase = PhaseDone
	if _, _, err := ApplyRequest(done, req, time.Time{}); err == nil || !strings.Contains(err.Error(), "the entry is done") {
		t.Errorf("reopen after done: %v", err)
	}
	if _, err := ParseRequest("- reopen 1"); err == nil {
		t.Errorf("reopen without a reason parsed")
	}
}

// The brief quotes an acceptance criterion byte for byte as the approved
// spec has it: whitespace inside a code span is the criterion.
func TestBriefQuotesTheCriterionByteForByte(t *testing.T) {
	src := "# X\n\n## Acceptance criteria\n1. `WordCount(\"  a b\\tc\\n\")` returns 3.\n2. Second  criterion\n   spans two lines.\n\n## Verify\n- `go test ./...`\n"
	sp := specOf(t, src)
	for row, want := range map[int]string{1: "`WordCount(\"  a b\\tc\\n\")` returns 3.", 2: "Second  criterion\nspans two lines."} {
		l := dispatched(t, ledgerOf(t, 4, []string{"open/0", "open/0"}, seeded), row)
		b, err := Brief(BriefInput{Ledger: l, Spec: sp, LedgerPath: "plans/x-ledger.md", Repo: "acme/api", Branch: "gallivant/x"})
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b, "\n"+want+"\n") {
			t.Errorf("row %d: the brief does not quote %q byte for byte:\n%s", row, want, b)
		}
	}
}

// L-43: after a retry, the brief's previous decision is the row's last
// failure, not the retry marker.
func TestPreviousDecisionSkipsMarkers(t *testing.T) {
	l := ledgerOf(t, 4, []string{"failed/2"}, seeded, "row 1 failed | timeout at 30s | raise it", "row 1 escalated | implModel round | allowed attempts 4", "row 1 retry | use 60s | allowed attempts 5")
	d, ok := l.PreviousResult()
	if !ok || d.Line != "row 1 failed | timeout at 30s | raise it" {
		t.Errorf("PreviousResult = %q, %v", d.Line, ok)
	}
}

// Issue 12: an orphaned run that never answered is rerun, without a new
// count, up to MaxReruns times; the next time it stops interrupted.
func TestSettleRerunsAnOrphanAtMostMaxReruns(t *testing.T) {
	l := dispatched(t, ledgerOf(t, 4, []string{"open/0"}, seeded), 1)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	n := l
	for i := 1; i <= MaxReruns; i++ {
		next, c, changed, err := Settle(n, Observation{RunOver: true, Orphaned: true, Now: now})
		if err != nil || !changed || c.Subject != "loop: rerun row 1" || next.Pending == nil || next.Iterations != l.Iterations || next.Delivery.Reruns != i {
			t.Fatalf("orphan %d: %q pending %v iterations %d reruns %d err %v", i, c.Subject, next.Pending, next.Iterations, next.Delivery.Reruns, err)
		}
		n = next
	}
	_, c, _, _ := Settle(n, Observation{RunOver: true, Orphaned: true, Now: now})
	if c.Subject != "loop: stop interrupted" {
		t.Errorf("orphan %d: %q, want a stop", MaxReruns+1, c.Subject)
	}
	// The half-done tree an orphan's killed agent left is that kill's
	// leftover: rerun, within the same budget; then the boundary stop.
	if _, c, _, _ := Settle(l, Observation{RunOver: true, Orphaned: true, Dirty: true, DirtyWhat: "uncommitted A row-1.txt", Now: now}); c.Subject != "loop: rerun row 1" {
		t.Errorf("an orphan that left its tree dirty: %q, want a rerun", c.Subject)
	}
	if _, c, _, _ := Settle(n, Observation{RunOver: true, Orphaned: true, Dirty: true, DirtyWhat: "uncommitted A row-1.txt", Now: now}); c.Subject != "loop: stop boundary" {
		t.Errorf("orphan %d that left its tree dirty: %q, want the boundary stop (L-60)", MaxReruns+1, c.Subject)
	}
	if _, c, _, _ := Settle(l, Observation{RunOver: true, Dirty: true, Now: now}); c.Subject != "loop: stop boundary" {
		t.Errorf("a run seen to end with its tree dirty: %q, want the boundary stop (L-60)", c.Subject)
	}
	if _, c, _, _ := Settle(l, Observation{RunOver: true, Now: now}); c.Subject != "loop: stop interrupted" {
		t.Errorf("a run seen to end without answering: %q, want a stop (L-69)", c.Subject)
	}
}

// A rerun answers an interrupted stop written by a reconciler that could
// not see the run record: the stop is cleared in the rerun's commit.
func TestRerunClearsAnInterruptedStop(t *testing.T) {
	l := dispatched(t, ledgerOf(t, 4, []string{"open/0"}, seeded), 1)
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	stopped, _, _, _ := Settle(l, Observation{RunOver: true, Now: now})
	if _, _, ok := stopped.Stop(); !ok {
		t.Fatal("no stop to answer")
	}
	n, c := Rerun(stopped, now.Add(time.Minute))
	if _, _, ok := n.Stop(); ok || c.Subject != "loop: rerun row 1" || n.Pending == nil || n.Delivery.Reruns != 1 {
		t.Errorf("rerun of a stopped dispatch: %q stopped %v pending %v reruns %d", c.Subject, ok, n.Pending, n.Delivery.Reruns)
	}
}

// Resuming a harness-error stop runs the same dispatch again with its
// dispatched-at restarted, as an interrupted stop's resume does (L-69:
// no new count); a round's harness error, with no dispatch outstanding,
// changes no time.
func TestResumeHarnessErrorRestartsTheDispatch(t *testing.T) {
	t.Parallel()
	l := dispatched(t, ledgerOf(t, 4, []string{"open/0"}, seeded), 1)
	now := time.Date(2026, 12, 2, 9, 0, 0, 0, time.UTC)
	stopped, _ := Stop(l, StopHarnessError, "iteration 1: exit status 139 (log x)", 1)
	resumed, c, err := ApplyRequest(stopped, mustRequest(t, "resume | executor fixed"), now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, still := resumed.Stop(); still || resumed.Pending == nil || resumed.Iterations != l.Iterations {
		t.Fatalf("resumed: stop %v pending %v iterations %d; want the same dispatch outstanding, no new count", still, resumed.Pending, resumed.Iterations)
	}
	if !resumed.Delivery.DispatchedAt.Equal(now) {
		t.Errorf("dispatched-at %v, want the resume's time %v", resumed.Delivery.DispatchedAt, now)
	}
	if !strings.Contains(c.Sentence, "runs again as iteration") {
		t.Errorf("the resume says %q; want it to say the dispatch runs again", c.Sentence)
	}
}
