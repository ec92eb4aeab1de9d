package ledger

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// A member's view shows its keys under their plain names and the entry's
// keys as they are; folding a changed view back touches only that member's
// keys and the entry's, and the entry's phase is the least advanced
// member's.
func TestLegViewFold(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "testdata/roundtrip/coordinated-review.md")
	members := []string{"home", "api", "web"}
	web := l.LegView("web")
	if got, want := web.Delivery.Lines(), []string{
		"spec-commit: 0c1d2e3f405162738495a6b7c8d9e0f1a2b3c4d5", "contract: 65599987f15f", "branch: gallivant/audit-log",
		"phase: review", "dispatched-at: 2026-11-29T12:10:00Z", "pr: acme/web#3", "round: 2",
		"head: 2222222222222222222222222222222222222222", "head-at: 2026-11-29T12:05:00Z",
		"checks-head: 2222222222222222222222222222222222222222", "since: 2026-11-29T12:01:00Z",
		"receipt: ba9876543210", "reviewer-asked: 2026-11-29T12:05:00Z", "retry: ready-label 2 | 502 Bad Gateway",
	}; !cmp.Equal(want, got) {
		t.Fatalf("web's view (-want +got):\n%s", cmp.Diff(want, got))
	}
	if web.Member() != "web" || l.Member() != "home" {
		t.Errorf("Member: view %q, whole %q", web.Member(), l.Member())
	}
	// web becomes ready: api is ready, home is done, so the entry is.
	v := web.Clone()
	v.Delivery.Phase = PhaseReady
	v.Delivery.Retry = WriteRetry{}
	v.Delivery.DispatchedAt = time.Time{}
	n := WithLeg(l, "web", v, members)
	if n.Phase() != PhaseReady {
		t.Errorf("entry phase %s, want ready", n.Phase())
	}
	if diff := cmp.Diff(l.LegView("api").Delivery.Lines(), n.LegView("api").Delivery.Lines()); diff != "" {
		t.Errorf("folding web changed api (-want +got):\n%s", diff)
	}
	if lineValue(n.Delivery, "retry web") != "" || lineValue(n.Delivery, "dispatched-at web") != "" || lineValue(n.Delivery, "phase web") != "ready" {
		t.Errorf("web's keys after the fold: %v", n.Delivery.Lines())
	}
	// A stop a member's transition records stops the entry.
	s, _ := Stop(n.LegView("api"), StopClosed, "acme/api#7 was closed without merging", 0)
	if r, _, ok := WithLeg(n, "api", s, members).Stop(); !ok || r != StopClosed {
		t.Errorf("a member's stop did not stop the entry: %v %v", r, ok)
	}
	// Reformatting the fold is canonical and byte-stable.
	once := Format(n)
	again, ds := Parse("x.md", once)
	if Fatal(ds) || string(Format(again)) != string(once) {
		t.Errorf("fold does not format stably: %v", ds)
	}
}

func TestEntryPhase(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name   string
		phases map[string]Phase
		want   Phase
	}{
		{"no member has opened", map[string]Phase{}, PhaseImplement},
		{"one opened, one not", map[string]Phase{"api": PhaseReview}, PhaseImplement},
		{"both in review", map[string]Phase{"api": PhaseReview, "web": PhaseReview}, PhaseReview},
		{"one ready", map[string]Phase{"api": PhaseReady, "web": PhaseReview}, PhaseReview},
		{"both ready", map[string]Phase{"api": PhaseReady, "web": PhaseReady}, PhaseReady},
		{"one merged, one ready", map[string]Phase{"api": PhaseDone, "web": PhaseReady}, PhaseReady},
		{"both merged", map[string]Phase{"api": PhaseDone, "web": PhaseDone}, PhaseDone},
		{"verify counts as implement", map[string]Phase{"api": PhaseVerify, "web": PhaseDone}, PhaseImplement},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l := &Ledger{Delivery: NewDelivery()}
			for m, p := range tt.phases {
				l.Delivery.Member(m).Phase = p
			}
			if got := EntryPhase(l, []string{"api", "web"}); got != tt.want {
				t.Errorf("EntryPhase = %s, want %s", got, tt.want)
			}
		})
	}
}

// resume after a closed or leg-closed stop owes the reopening on every
// member with an open delivery, never on the entry.
func TestResumeActsOnEveryLeg(t *testing.T) {
	t.Parallel()
	l := mustParse(t, "testdata/roundtrip/coordinated-review.md")
	l.Delivery.Stop = StopRecord{Reason: "leg-closed", Detail: "acme/web#3 was closed while acme/api#7 is merged"}
	l.Requests, l.HasRequests = []string{"resume | reopened by mistake"}, true
	n, _, err := ApplyRequest(l, Request{Kind: RequestResume, Text: "reopened by mistake", Line: "resume | reopened by mistake"}, time.Date(2026, 11, 29, 13, 0, 0, 0, time.UTC))
	if err != nil {
		t.Fatal(err)
	}
	if !n.Delivery.Owed.IsZero() || lineValue(n.Delivery, "owed web") != "reopen" || lineValue(n.Delivery, "owed api") != "reopen" {
		t.Errorf("owed after resume: %v", n.Delivery.Lines())
	}
	if _, _, stopped := n.Stop(); stopped {
		t.Error("still stopped")
	}
}
