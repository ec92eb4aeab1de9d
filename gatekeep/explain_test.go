package gatekeep

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// Every step of the pull-request loop has its words; a stop names its
// reason and detail, a round its findings, and a wait or hold says what
// the decision's detail says.
func TestActionWords(t *testing.T) {
	t.Parallel()
	tests := []struct {
		a    Action
		want string
	}{
		{Action{Step: StepOpen}, "open the pull request from the work branch, with the identity block and the receipt"},
		{Action{Step: StepNothing, Detail: "every row is cut and the work branch gallivant/x was never created"}, "record done without a pull request: every row is cut and the work branch gallivant/x was never created"},
		{Action{Step: StepReopen}, "reopen the pull request, as the resume after its closed stop owes"},
		{Action{Step: StepDone}, "record the merge"},
		{Action{Step: StepLegClosed}, "record the leg's pull request as closed unmerged"},
		{Action{Step: StepStop, Reason: ledger.StopClosed, Detail: "acme/api#1 was closed without merging"}, "stop closed: acme/api#1 was closed without merging"},
		{Action{Step: StepPayOwed, Write: WriteRoundComment, Arg: "2"}, "pay the owed round-comment write first; nothing else happens while it is owed"},
		{Action{Step: StepFollow}, "follow the head a person pushed: the head cursor moves and the reviewer clock restarts"},
		{Action{Step: StepBaseMerged}, "record the new head as gallivant's own merge of the base"},
		{Action{Step: StepRewritten}, "stop boundary: the head does not contain the recorded one (its history was rewritten)"},
		{Action{Step: StepUnready, Detail: "its head moved to 0123456"}, "remove the ready label: its head moved to 0123456"},
		{Action{Step: StepRewriteBody}, "rewrite gallivant's identity block and receipt in the body"},
		{Action{Step: StepUndraft}, "mark the draft ready for review"},
		{Action{Step: StepJudge}, "read the pull request's digest and judge it"},
		{Action{Step: StepMergeBase}, "merge the base into the work branch, which is only behind it"},
		{Action{Step: StepRound, Findings: []Finding{{}}}, "dispatch a review round for 1 finding"},
		{Action{Step: StepRound, Findings: []Finding{{}, {}}}, "dispatch a review round for 2 findings"},
		{Action{Step: StepReady}, "label the pull request ready: checks are green, the reviewer is clear and the completion gate passes"},
		{Action{Step: StepHoldReady, Detail: "acme/api#1 is ready; waits for a person to merge it"}, "acme/api#1 is ready; waits for a person to merge it"},
		{Action{Step: StepWait, Detail: "acme/api#1 waits for an approval by @alice of 0123456"}, "acme/api#1 waits for an approval by @alice of 0123456"},
		{Action{Step: StepHold, Detail: "acme/api#1 is blocked"}, "acme/api#1 is blocked"},
		{Action{Step: StepChecksQuiet, Reason: ledger.StopChecksSilent}, "stop checks-silent: no check run or status reported on the head within checks.wait"},
	}
	for _, tt := range tests {
		if got := tt.a.Words(); got != tt.want {
			t.Errorf("Action{Step: %s}.Words() = %q; want %q", tt.a.Step, got, tt.want)
		}
	}
	// A step the words do not know still says itself, never nothing.
	if got := (Action{Step: "later", Detail: "x"}).Words(); !strings.HasPrefix(got, "later: ") {
		t.Errorf("unknown step: Words() = %q", got)
	}
}
