package gatekeep

import "testing"

// A round whose branch shows no push waits, stops or runs again by how its
// agent ended; only a run seen to finish cleanly is an empty round, so a
// crashed or overdue round never moves the cursor past its feedback.
func TestDecideRoundEnd(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		end  RoundEnd
		want RoundStep
	}{
		{"not seen, in flight", RoundEnd{}, RoundWait},
		{"seen, still running", RoundEnd{Seen: true}, RoundWait},
		{"not seen, overdue", RoundEnd{Overdue: true}, RoundUnanswered},
		{"seen running, overdue", RoundEnd{Seen: true, Overdue: true}, RoundUnanswered},
		{"seen running and failed, overdue", RoundEnd{Seen: true, Failed: true, Overdue: true}, RoundFailed},
		{"finished clean", RoundEnd{Seen: true, Finished: true}, RoundNothing},
		{"recovered after its reconciler died, clean", RoundEnd{Seen: true, Finished: true, Recovered: true}, RoundUnanswered},
		{"recovered dirty: a killed agent's half-done tree", RoundEnd{Seen: true, Finished: true, Dirty: true, Recovered: true}, RoundUnanswered},
		{"recovered, not yet overdue", RoundEnd{Seen: true, Finished: true, Recovered: true, Overdue: false}, RoundUnanswered},
		{"finished failed", RoundEnd{Seen: true, Finished: true, Failed: true}, RoundFailed},
		{"finished failed and dirty", RoundEnd{Seen: true, Finished: true, Failed: true, Dirty: true}, RoundFailed},
		{"finished dirty", RoundEnd{Seen: true, Finished: true, Dirty: true}, RoundDirty},
		{"overdue, not seen, failure unknown", RoundEnd{Overdue: true, Failed: true, Dirty: true}, RoundUnanswered},
	}
	for _, tt := range tests {
		if got := DecideRoundEnd(tt.end); got != tt.want {
			t.Errorf("DecideRoundEnd(%s) = %v; want %v", tt.name, got, tt.want)
		}
	}
}
