package ledger

import "testing"

// A run that returned nothing is waited for, rerun, withdrawn or stopped by
// how it ended; a return or a dirty checkout is always settled (L-60).
func TestDecideRun(t *testing.T) {
	t.Parallel()
	commit := []Return{{SHA: "1111111111111111111111111111111111111111", Subject: "feat: a"}}
	tests := []struct {
		name string
		obs  Observation
		end  RunEnd
		want RunStep
	}{
		{"not seen", Observation{}, RunEnd{Failed: true}, RunSettle},
		{"seen, clean, no error", Observation{}, RunEnd{Seen: true}, RunSettle},
		{"unpushed", Observation{}, RunEnd{Seen: true, Unpushed: true, Failed: true}, RunUnpushed},
		{"lost", Observation{}, RunEnd{Seen: true, Lost: true, Failed: true}, RunLost},
		{"environment", Observation{}, RunEnd{Seen: true, Failed: true, Environment: true}, RunUnavailable},
		{"harness error", Observation{}, RunEnd{Seen: true, Failed: true}, RunHarnessError},
		{"failed with a commit", Observation{Commits: commit}, RunEnd{Seen: true, Failed: true}, RunSettle},
		{"lost with a commit", Observation{Commits: commit}, RunEnd{Seen: true, Lost: true, Failed: true}, RunSettle},
		{"unpushed but dirty", Observation{Dirty: true}, RunEnd{Seen: true, Unpushed: true}, RunSettle},
		{"failed and dirty", Observation{Dirty: true}, RunEnd{Seen: true, Failed: true}, RunSettle},
	}
	for _, tt := range tests {
		if got := DecideRun(tt.obs, tt.end); got != tt.want {
			t.Errorf("DecideRun(%s) = %v; want %v", tt.name, got, tt.want)
		}
	}
}
