package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// The legs of one coordinated delivery are judged as one batch: pull
// requests of two repositories are admitted only when the caller says they
// are legs of one delivery (G-91 otherwise), and the summary names each by
// owner/name#N and lists the paths both change.
func TestLegsBatch(t *testing.T) {
	t.Parallel()
	legs := func(a, b PR) bool { return a.Repo == "acme/api" && b.Repo == "acme/web" }
	if _, err := AdmitLegs([]string{"acme/api#1", "acme/web#1"}, "", 8, legs); err != nil {
		t.Errorf("legs refused: %v", err)
	}
	if _, err := AdmitLegs([]string{"acme/api#1", "acme/docs#1"}, "", 8, legs); err == nil {
		t.Error("pull requests of two repositories that are not legs were admitted")
	}
	a, b := digest(""), digest("")
	a.Files, b.Files = []string{"schema/audit.json", "api.go"}, []string{"web.ts", "schema/audit.json"}
	v := Verdict{Kind: Mergeable, Evidence: EvidenceLocal}
	got := Summary([]Judged{{PR: PR{"acme/api", 1}, Digest: &a, Verdict: &v}, {PR: PR{"acme/web", 1}, Digest: &b, Verdict: &v}})
	want := "acme/api#1 mergeable | evidence: local | blockers: 0\nacme/web#1 mergeable | evidence: local | blockers: 0\nShared files:\nschema/audit.json - acme/api#1, acme/web#1\n"
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("Summary (-want +got):\n%s", diff)
	}
}

func TestTogetherRules(t *testing.T) {
	t.Parallel()
	members := []string{"api", "web"}
	with := func(kv ...string) *ledger.Ledger {
		var lines []string
		for i := 0; i < len(kv); i += 2 {
			lines = append(lines, kv[i]+": "+kv[i+1])
		}
		d, err := ledger.ParseDeliveryLines(lines...)
		if err != nil {
			t.Fatal(err)
		}
		return &ledger.Ledger{Delivery: d}
	}
	review := with("phase api", "review", "pr api", "acme/api#1", "phase web", "review", "pr web", "acme/web#1")
	tests := []struct {
		name   string
		l      *ledger.Ledger
		passed map[string]bool
		ready  bool
	}{
		{"both passed", review, map[string]bool{"api": true, "web": true}, true},
		{"one passed", review, map[string]bool{"api": true}, false},
		{"one ready, one passed", with("phase api", "ready", "phase web", "review"), map[string]bool{"web": true}, true},
		{"one merged, one passed", with("phase api", "done", "phase web", "review"), map[string]bool{"web": true}, true},
		{"one not opened yet", with("phase api", "review"), map[string]bool{"api": true}, false},
		{"nothing passed this pass", with("phase api", "ready", "phase web", "ready"), nil, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := ReadyTogether(tt.l, members, tt.passed); got != tt.ready {
				t.Errorf("ReadyTogether = %v, want %v", got, tt.ready)
			}
		})
	}
	back := with("phase api", "ready", "pr api", "acme/api#1", "phase web", "review", "pr web", "acme/web#1")
	if diff := cmp.Diff([]string{"api"}, UnreadyTogether(back, members)); diff != "" {
		t.Errorf("UnreadyTogether (-want +got):\n%s", diff)
	}
	if got := UnreadyTogether(with("phase api", "ready", "pr api", "acme/api#1", "phase web", "ready", "pr web", "acme/web#1"), members); got != nil {
		t.Errorf("UnreadyTogether with both ready = %v", got)
	}
	m, pr, ok := MergedMember(with("phase api", "done", "pr api", "acme/api#1", "phase web", "review"), members, "web")
	if !ok || m != "api" || pr != "acme/api#1" {
		t.Errorf("MergedMember = %s %s %v", m, pr, ok)
	}
}
