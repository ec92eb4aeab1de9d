package main

import (
	"bytes"
	"testing"

	"github.com/gallivant/gallivant/reconcile"
)

// A malformed request is what `check` reports as an error: the pass names
// it and exits 1 like check, while a request refused in the entry's state
// is reported and the pass exits 0 (issue 31).
func TestPassExitOnRefusals(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		refusals []reconcile.Refusal
		want     int
	}{
		{"none", nil, exitOK},
		{"refused in this state", []reconcile.Refusal{{Ledger: "plans/a-ledger.md", Request: "retry 2 | x", Reason: "row 2 is not stopped"}}, exitOK},
		{"malformed", []reconcile.Refusal{{Ledger: "plans/a-ledger.md", Request: "retyr 2", Reason: "malformed: unknown request", Malformed: true}}, exitFindings},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			rep := &reconcile.Report{Refusals: tc.refusals}
			if got := exitCode(passExit(rep, nil, "GITHUB_TOKEN"), &bytes.Buffer{}); got != tc.want {
				t.Errorf("exit %d, want %d", got, tc.want)
			}
		})
	}
}
