package reconcile

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/google/go-cmp/cmp"
)

// Claude Code is told what is left of a dollar budget (--max-budget-usd):
// the whole budget on the seed, then the budget less what the admitted
// returns reported (the stand-in reports $0.0123 a run). (A token-only
// budget, and codex and aider, which have no such flag, are covered by
// agent.TestInvocation and ledger.TestRemainingDollars, without a pass.)
func TestMaxBudgetUSDFromRemainingBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, kind, budget string
		want               []string
	}{
		{"claude, tokens and dollars", "claude-code", "100000 tokens, $0.5", []string{"--max-budget-usd 0.5 ", "--max-budget-usd 0.4877 "}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r, bin, opt := presetRig(t, tc.kind, "---\nbudget: "+tc.budget+"\n---\n"+specWith(1, ""))
			rep := r.pass(opt)
			if got := countSubjects(rep, "loop: record home row 1"); got != 1 {
				t.Fatalf("transitions %q\n%s", subjectsOf(rep), r.log.String())
			}
			calls := agentstandin.CallsOf(t, bin)
			var got []string
			for _, c := range calls {
				args, _, _ := strings.Cut(c, " | ")
				flag := ""
				if i := strings.Index(args, "--max-budget-usd "); i >= 0 {
					flag = args[i:]
					if j := strings.IndexByte(flag[len("--max-budget-usd "):], ' '); j >= 0 {
						flag = flag[:len("--max-budget-usd ")+j+1]
					} else {
						flag += " "
					}
				}
				got = append(got, flag)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("budget flags of the seed and row 1 (-want +got):\n%s\ncalls %q", diff, calls)
			}
		})
	}
}
