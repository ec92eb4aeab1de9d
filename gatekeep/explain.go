package gatekeep

import "fmt"

// Look names which look of the pull-request loop took a decision: the
// reconciler's pass and `gallivant why --live` take the same looks, in the
// same order, so both say the same decision.
type Look string

// Looks of the pull-request loop.
const (
	// LookOpen is DecideOpen: every row is closed and no pull request
	// is recorded yet.
	LookOpen Look = "open"
	// LookLive is DecideLive, on the live pull request alone.
	LookLive Look = "live"
	// LookJudged is DecideJudged, on the verdict of the full digest.
	LookJudged Look = "judged"
	// LookQuiet is a pull request unchanged since its last full read:
	// the pass did not read it again, and the wait it last decided
	// stands.
	LookQuiet Look = "quiet"
)

// Words says an action in words, as `gallivant why` and the dashboard
// print it: the step, a stop's reason and detail, and what a wait waits
// for. It is the same sentence for the pass's decision and for why's.
func (a Action) Words() string {
	switch a.Step {
	case StepOpen:
		return "open the pull request from the work branch, with the identity block and the receipt"
	case StepNothing:
		return "record done without a pull request: " + a.Detail
	case StepReopen:
		return "reopen the pull request, as the resume after its closed stop owes"
	case StepDone:
		return "record the merge"
	case StepLegClosed:
		return "record the leg's pull request as closed unmerged"
	case StepStop:
		return fmt.Sprintf("stop %s: %s", a.Reason, a.Detail)
	case StepPayOwed:
		return fmt.Sprintf("pay the owed %s write first; nothing else happens while it is owed", a.Write)
	case StepFollow:
		return "follow the head a person pushed: the head cursor moves and the reviewer clock restarts"
	case StepBaseMerged:
		return "record the new head as gallivant's own merge of the base"
	case StepRewritten:
		return "stop boundary: the head does not contain the recorded one (its history was rewritten)"
	case StepUnready:
		return "remove the ready label: " + a.Detail
	case StepRewriteBody:
		return "rewrite gallivant's identity block and receipt in the body"
	case StepUndraft:
		return "mark the draft ready for review"
	case StepJudge:
		return "read the pull request's digest and judge it"
	case StepMergeBase:
		return "merge the base into the work branch, which is only behind it"
	case StepRound:
		return fmt.Sprintf("dispatch a review round for %s", countOf(len(a.Findings), "finding"))
	case StepReady:
		return "label the pull request ready: checks are green, the reviewer is clear and the completion gate passes"
	case StepHoldReady, StepWait, StepHold:
		return a.Detail
	case StepChecksQuiet:
		return "stop checks-silent: no check run or status reported on the head within checks.wait"
	}
	return fmt.Sprintf("%s: %s", a.Step, a.Detail)
}

// countOf is `1 finding`, `2 findings`.
func countOf(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return fmt.Sprintf("%d %ss", n, noun)
}
