package gatekeep

import "fmt"

// WaitKind is the closed vocabulary of what a waiting verdict waits for.
type WaitKind string

// Wait kinds.
const (
	// WaitMergeability: GitHub has not computed the merge state yet.
	WaitMergeability WaitKind = "mergeability"
	// WaitCheck: a check on the head has not finished (Name).
	WaitCheck WaitKind = "check"
	// WaitChecksReadable: the head's checks could not be read.
	WaitChecksReadable WaitKind = "checks-readable"
	// WaitRequiredCheck: a required check has not reported (Name).
	WaitRequiredCheck WaitKind = "required-check"
	// WaitReReview: a steerer requested changes that were answered and has
	// not reviewed again (User, on Head: the reviewed commit).
	WaitReReview WaitKind = "re-review"
	// WaitApproval: the configured reviewer has not approved the head
	// (User).
	WaitApproval WaitKind = "approval"
	// WaitFirstCI: the head has no check run or status at all.
	WaitFirstCI WaitKind = "first-ci"
	// WaitReviewsReadable: the reviews could not be read.
	WaitReviewsReadable WaitKind = "reviews-readable"
	// WaitApprovals: GitHub reports the pull request blocked and the base
	// branch requires more approving reviews (Need) than it has (Have).
	WaitApprovals WaitKind = "approvals"
)

// Wait is one thing a waiting verdict waits for, as a typed value; String
// is the sentence the verdict, the pass's wait and the report show.
type Wait struct {
	Kind WaitKind
	// Head is the commit the wait is about (the pull request's head; for a
	// re-review, the commit the changes were requested on).
	Head string
	// Name is the check of WaitCheck and WaitRequiredCheck.
	Name string
	// User is the reviewer of WaitReReview and WaitApproval.
	User string
	// Need and Have are WaitApprovals' required and given approvals.
	Need, Have int
}

// String renders the wait as the verdict's prose.
func (w Wait) String() string {
	switch w.Kind {
	case WaitMergeability:
		return "GitHub to compute mergeability"
	case WaitCheck:
		return fmt.Sprintf("check %s on %s", w.Name, short(w.Head))
	case WaitChecksReadable:
		return "the checks on " + short(w.Head) + " to be readable"
	case WaitRequiredCheck:
		return fmt.Sprintf("required check %s to report on %s", w.Name, short(w.Head))
	case WaitReReview:
		return fmt.Sprintf("a re-review by @%s (changes requested on %s were answered)", w.User, short(w.Head))
	case WaitApproval:
		return fmt.Sprintf("an approval by @%s of %s", w.User, short(w.Head))
	case WaitFirstCI:
		return WaitCI + " " + short(w.Head)
	case WaitReviewsReadable:
		return "the reviews to be readable"
	case WaitApprovals:
		word := "approving reviews"
		if w.Need == 1 {
			word = "approving review"
		}
		return fmt.Sprintf("%d %s the base branch requires (%d so far)", w.Need, word, w.Have)
	}
	return string(w.Kind)
}

// MarshalText spells the wait as its sentence: the JSON verdict's waits.
func (w Wait) MarshalText() ([]byte, error) { return []byte(w.String()), nil }

// waitFor records one wait.
func (v *Verdict) waitFor(w Wait) { v.WaitsFor = append(v.WaitsFor, w) }

// WaitSentences are the verdict's waits as sentences, in order.
func (v Verdict) WaitSentences() []string {
	var out []string
	for _, w := range v.WaitsFor {
		out = append(out, w.String())
	}
	return out
}
