package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/audit"
	"github.com/gallivant/gallivant/internal/agent"
	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// TestTamperedStopAndAccept pins L-121: a person's edit of a
// reconciler-owned section stops the entry tampered before anything trusts
// it; a request line alone does not; `accept | <why>` takes the edit on as
// a commit, after which the loop goes on; and the whole history verifies,
// the hand edit reported as accepted.
func TestTamperedStopAndAccept(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(2, "")})
	none := func(o *Options) { o.Executor = agent.NoneExecutor{} }
	if diff := cmp.Diff([]string{"loop: seed ledger", "loop: dispatch seed"}, subjectsOf(r.pass(none))); diff != "" {
		t.Fatalf("first pass (-want +got):\n%s", diff)
	}
	// A request line is a person's to write: no stop.
	r.request(ledgerPath, "retry 1 | not yet")
	if got := subjectsOf(r.pass(none)); len(got) != 0 {
		t.Fatalf("a request line stopped the entry: %v", got)
	}
	r.edit(ledgerPath, func(s string) string { return strings.Replace(s, "allowance: 2\n", "allowance: 40\n", 1) })
	rep := r.pass(none)
	if diff := cmp.Diff([]string{"loop: stop tampered"}, subjectsOf(rep)); diff != "" {
		t.Fatalf("after the hand edit (-want +got):\n%s", diff)
	}
	l := r.ledger(ledgerPath)
	if reason, detail, _ := l.Stop(); reason != ledger.StopTampered || !strings.Contains(detail, "header") || !strings.Contains(detail, "+allowance: 40") {
		t.Errorf("stop = %s | %s", reason, detail)
	}
	if got := subjectsOf(r.pass(none)); len(got) != 0 {
		t.Fatalf("a tampered entry moved: %v", got)
	}
	r.request(ledgerPath, "accept | raised on purpose for a slow row")
	if diff := cmp.Diff([]string{"loop: accept"}, subjectsOf(r.pass(none))); diff != "" {
		t.Fatalf("after accept (-want +got):\n%s", diff)
	}
	if l := r.ledger(ledgerPath); l.Allowance != 40 || len(l.Requests) != 1 {
		t.Errorf("accepted ledger: allowance %d, requests %q", l.Allowance, l.Requests)
	}
	if _, _, stopped := r.ledger(ledgerPath).Stop(); stopped {
		t.Error("accept left the stop")
	}
	st, err := store.Open(context.Background(), store.Options{Control: "file://" + r.control, CacheDir: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	v := audit.NewVerifier()
	if err := st.History(context.Background(), "", nil, func(c audit.Commit) error { v.Add(c); return nil }); err != nil {
		t.Fatal(err)
	}
	rep2 := v.Report()
	if !rep2.Legal() || len(rep2.Accepted) != 1 || rep2.Accepted[0].Section != audit.SectionHeader {
		t.Errorf("%s\nviolations %+v\naccepted %+v", rep2.Summary(), rep2.Violations, rep2.Accepted)
	}
}
