package gatekeep

import (
	"encoding/json"
	"testing"

	"github.com/google/go-cmp/cmp"
)

// The JSON verdict spells the typed waits as their sentences, as the
// `waits` field always has.
func TestVerdictJSONWaits(t *testing.T) {
	t.Parallel()
	v := Verdict{Kind: Waiting, WaitsFor: []Wait{{Kind: WaitCheck, Name: "build", Head: head}, {Kind: WaitMergeability}}}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Waits []string }
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]string{"check build on 1111111", "GitHub to compute mergeability"}, got.Waits); diff != "" {
		t.Errorf("waits (-want +got):\n%s\n%s", diff, b)
	}
}

// A merge state counts as computed only once GitHub reports one.
func TestMergeStateComputed(t *testing.T) {
	t.Parallel()
	for _, tt := range []struct {
		m    MergeState
		want bool
	}{{"", false}, {MergeUnknown, false}, {MergeClean, true}, {MergeBlocked, true}, {MergeDirty, true}} {
		if got := tt.m.Computed(); got != tt.want {
			t.Errorf("MergeState(%q).Computed() = %v; want %v", tt.m, got, tt.want)
		}
	}
}
