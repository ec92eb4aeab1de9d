package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// With no executor.escalation_model (the `gallivant init` default), a row
// at its escalation threshold goes on with the default model: the marker
// is written, its commit says so, and the escalated attempt runs with no
// model — never a no-escalation-model stop (issue 27).
func TestRowLoopEscalatesOnTheDefaultModel(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, ""),
		"gallivant.yaml": strings.Replace(strings.Replace(rigConfig, "  escalation_model: big-model\n", "", 1), "allowance: 2", "allowance: 3", 1)})
	// Row 1 fails twice, reaching the threshold min(3, allowance 3 - 1).
	fails := 0
	r.script = func(target string, n int, model string) Behavior {
		if target == "1" && fails < 2 {
			fails++
			return Fail
		}
		return Done
	}
	rep := r.pass()
	want := andDelivered("loop: seed ledger", "loop: dispatch seed", "loop: record home seed",
		"loop: dispatch row 1", "loop: record home row 1", "loop: dispatch row 1", "loop: record home row 1",
		"loop: escalate row 1", "loop: dispatch row 1", "loop: record home row 1")
	if diff := cmp.Diff(want, subjectsOf(rep)); diff != "" {
		t.Fatalf("transitions (-want +got):\n%s", diff)
	}
	for _, tr := range rep.Transitions {
		if tr.Subject == "loop: escalate row 1" && !strings.Contains(tr.Sentence, "executor.escalation_model is not set, so its escalated attempt runs on the default model") {
			t.Errorf("the escalation says %q; want it to name the default model", tr.Sentence)
		}
	}
	if got := r.runs[len(r.runs)-1].Model; got != "" {
		t.Errorf("the escalated attempt ran with model %q, want the default (none)", got)
	}
	if row := r.ledger(ledgerPath).Rows[0]; row.Status != ledger.Done || row.Attempts != 3 {
		t.Errorf("row 1: %+v", row)
	}
}
