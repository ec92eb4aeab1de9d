package main

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
)

// No dead ends with the defaults (issue 27): with the gallivant.yaml that
// `gallivant init` writes, every stop's recommendation, pasted under
// ## Requests with its placeholders filled in, is accepted and clears the
// stop; a row stop then goes on with an attempt (a dispatch, or the
// escalation marker that precedes one), never straight into another stop.
func TestEveryStopClearsWithTheInitDefaults(t *testing.T) {
	t.Parallel()
	files := scaffold(&initOptions{Executor: "command", Repo: "acme/api", Branch: "main"}, initExecutors["command"])
	cfg, diags := specs.ParseConfig("gallivant.yaml", []byte(files[0].body))
	if len(diags) > 0 {
		t.Fatalf("the scaffolded gallivant.yaml: %v", diags)
	}
	settings := ledger.Settings{EscalateAfter: cfg.Defaults.EscalateAfter, EscalationModel: cfg.Executor.EscalationModel, Allowance: cfg.Defaults.Allowance}
	if settings.EscalationModel != "" {
		t.Fatalf("init sets executor.escalation_model %q; this test is about the empty default", settings.EscalationModel)
	}
	now := time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC)
	for _, reason := range ledger.StopReasons() {
		t.Run(string(reason), func(t *testing.T) {
			t.Parallel()
			l := stoppableLedger(t, reason, settings)
			stopped, _ := ledger.Stop(l, reason, "detail", 1)
			rec := ledger.Recommendation(stopped, reason, 1)
			form, _, _ := strings.Cut(rec, " - ")
			if form == "none" {
				if got := ledger.ClearingRequests(reason); len(got) != 0 {
					t.Errorf("recommends none but %v clear it", got)
				}
				return
			}
			line := "- " + strings.NewReplacer("<hint>", "use the v2 client", "<why>", "a person looked").Replace(form)
			req, err := ledger.ParseRequest(line)
			if err != nil {
				t.Fatalf("the recommended request %q does not parse: %v", line, err)
			}
			stopped.Requests = append(stopped.Requests, line)
			if req.Kind == ledger.RequestResnapshot {
				// Applied through Amend with the edited spec; here it
				// must be accepted at this stop.
				if st := stopped.RequestStates()[0]; st.Err != nil || st.Refusal != "" {
					t.Errorf("%q is not accepted: %v %s", line, st.Err, st.Refusal)
				}
				return
			}
			n, _, err := ledger.ApplyRequest(stopped, req, now)
			if err != nil {
				t.Fatalf("the recommended request %q is refused: %v", line, err)
			}
			if r, _, still := n.Stop(); still {
				t.Fatalf("%q left the entry stopped %s", line, r)
			}
			if n.Phase() != ledger.PhaseImplement {
				return // the delivery phases go on in the pull-request loop
			}
			switch a := ledger.Next(n, settings); a.Kind {
			case ledger.ActDispatch, ledger.ActEscalate, ledger.ActSettle, ledger.ActVerify:
			default:
				t.Errorf("after %q the next action is %s %s (%s); want an attempt", line, a.Kind, a.Reason, a.Detail)
			}
		})
	}
}

// stoppableLedger is a seeded two-row ledger in the state that stops the
// entry for reason under settings: row 1 failed at its allowance, at its
// escalation threshold, needing something, or broke the contract twice;
// a delivery stop's ledger has every row done and is in review.
func stoppableLedger(t *testing.T, reason ledger.StopReason, s ledger.Settings) *ledger.Ledger {
	t.Helper()
	threshold := min(s.EscalateAfter, s.Allowance-1)
	attempts := threshold
	last := "row 1 failed | the header is missing | add it"
	d := ledger.NewDelivery()
	rows := []ledger.Row{
		{N: 1, Status: ledger.Failed, Evidence: "go test ./x -run TestOne; FAIL"},
		{N: 2, Status: ledger.Done, Attempts: 1, Evidence: "go test ./x -run TestTwo; ok"},
	}
	var pending *ledger.Pending
	switch reason {
	case ledger.StopAllowance:
		attempts = s.Allowance
	case ledger.StopStagnation:
		d.EmptyReturns = 2
	case ledger.StopMisses:
		d.Misses = 2
	case ledger.StopNeeds:
		last = "row 1 failed | the fixture server is unreachable | needs a staging token"
	case ledger.StopInterrupted, ledger.StopBoundary, ledger.StopHarnessError, ledger.StopNoEscalationModel, ledger.StopSeedRefused,
		ledger.StopSpecChanged, ledger.StopBudget, ledger.StopTampered:
		if reason == ledger.StopInterrupted || reason == ledger.StopBoundary {
			pending = &ledger.Pending{Target: 1, Member: "home", SHA: strings.Repeat("b", 40)}
		}
	default:
		rows[0] = ledger.Row{N: 1, Status: ledger.Done, Attempts: 1, Evidence: "go test ./x -run TestOne; ok"}
		d.Phase = ledger.PhaseReview
		d.PR = ledger.PullRef{Repo: "acme/api", Number: 1}
	}
	rows[0].Attempts = attempts
	decisions := []string{"row 0 done | seeded 2 rows, closed 0 on baseline | row 1", "row 2 done | passes | row 1", last}
	if rows[0].Status == ledger.Done {
		decisions[2] = "row 1 done | header added | open the pull request"
	}
	l := &ledger.Ledger{Spec: "specs/x.md", Base: strings.Repeat("a", 40), Verification: "go test ./...", Allowance: s.Allowance,
		Delivery: d, HasRequests: true, Rows: rows, Pending: pending, Iterations: 2 + attempts}
	for _, line := range decisions {
		dd, err := ledger.ParseDecision(line)
		if err != nil {
			t.Fatalf("decision %q: %v", line, err)
		}
		l.Decisions = append(l.Decisions, dd)
	}
	if reason == ledger.StopSeedRefused {
		l.Decisions = l.Decisions[:0]
		l.Rows[0], l.Rows[1] = ledger.Row{N: 1, Status: ledger.Open}, ledger.Row{N: 2, Status: ledger.Open}
	}
	if a := ledger.Next(l, s); isRowStop(reason) && (a.Kind != ledger.ActStop || a.Reason != reason) {
		t.Fatalf("the %s ledger: Next = %s %s; want that stop (%s)", reason, a.Kind, a.Reason, fmt.Sprint(a.Detail))
	}
	return l
}

func isRowStop(r ledger.StopReason) bool {
	switch r {
	case ledger.StopAllowance, ledger.StopStagnation, ledger.StopMisses, ledger.StopNeeds:
		return true
	}
	return false
}
