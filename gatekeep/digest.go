package gatekeep

import (
	"fmt"
	"strconv"
	"time"
)

// PRState is a pull request's state in a digest: open or closed.
type PRState string

// Pull-request states; a merged pull request is closed, with Merged set.
const (
	PROpen   PRState = "open"
	PRClosed PRState = "closed"
)

// Digest is what GitHub says about one pull request, gathered by the caller.
// Every text field (title, body, review and comment bodies, check names) is
// untrusted data.
type Digest struct {
	Repo   string `json:"repo"`
	Number int    `json:"number"`
	// State is open or closed; Merged is set for a merged (closed) PR.
	State       PRState `json:"state"`
	Merged      bool    `json:"merged"`
	MergeCommit string  `json:"merge_commit,omitempty"`
	Draft       bool    `json:"draft"`
	Title       string  `json:"title"`
	Body        string  `json:"-"`
	Author      string  `json:"author"`
	HeadRef     string  `json:"head_ref"`
	// HeadRepo is the repository holding the head branch (a fork's for a
	// pull request from a fork); "" when unknown.
	HeadRepo string `json:"head_repo,omitempty"`
	// MaintainerCanModify: a fork's author lets the base repository's
	// writers push to the head branch.
	MaintainerCanModify bool   `json:"maintainer_can_modify,omitempty"`
	HeadSHA             string `json:"head_sha"`
	BaseRef             string `json:"base_ref"`
	BaseSHA             string `json:"base_sha"`
	// Mergeable is nil while GitHub computes it.
	Mergeable *bool `json:"mergeable"`
	// MergeState is GitHub's mergeable_state in lower case: clean, dirty,
	// blocked, behind, unstable, has_hooks, draft or unknown; "" when
	// unreadable.
	MergeState MergeState `json:"merge_state"`
	// Files are the changed paths; FilesKnown is false when they could not
	// be read.
	Files      []string `json:"files"`
	FilesKnown bool     `json:"-"`
	// Checks are the check runs and commit statuses on HeadSHA;
	// ChecksKnown is false when they could not be read.
	Checks      []Check `json:"checks"`
	ChecksKnown bool    `json:"-"`
	// Required names the checks the base branch's protection requires;
	// one that has not reported on the head yet is waited for.
	Required []string `json:"required,omitempty"`
	// RequiredApprovals is how many approving reviews the base branch
	// requires, when gallivant can read it (0 otherwise): a blocked pull
	// request with fewer waits for them.
	RequiredApprovals int      `json:"required_approvals,omitempty"`
	Reviews           []Review `json:"reviews"`
	// ReviewsKnown is false when the reviews could not be read.
	ReviewsKnown bool      `json:"-"`
	Comments     []Comment `json:"comments"`
	Labels       []string  `json:"labels"`
	// HeadCommittedAt is the head commit's committer date, for the
	// reviewer clock; zero when unknown.
	HeadCommittedAt time.Time `json:"head_committed_at,omitzero"`
}

// Ref renders owner/name#n.
func (d Digest) Ref() string { return d.Repo + "#" + strconv.Itoa(d.Number) }

// Check kinds.
const (
	KindCheckRun = "check_run"
	KindStatus   = "status_context"
)

// Check is one check run or commit status on the head.
type Check struct {
	Name string `json:"name"`
	Kind string `json:"kind"`
	// Status is queued, in_progress or completed for a check run, and
	// pending or completed for a commit status.
	Status CheckStatus `json:"status"`
	// Conclusion is set once completed: success, neutral, skipped, failure,
	// error, cancelled, timed_out, action_required, startup_failure or
	// stale.
	Conclusion CheckConclusion `json:"conclusion,omitempty"`
	// Required reports that the base branch's protection requires it.
	Required bool   `json:"required"`
	URL      string `json:"url,omitempty"`
}

// StatusCheck converts a commit status state (error, failure, pending,
// success) into a Check.
func StatusCheck(context string, state StatusState, url string, required bool) Check {
	if state == StatusPending {
		return Check{Name: context, Kind: KindStatus, Status: CheckPending, Required: required, URL: url}
	}
	return Check{Name: context, Kind: KindStatus, Status: CheckCompleted, Conclusion: CheckConclusion(state), Required: required, URL: url}
}

// Outcome classifies a check: passing, failing or running.
func (c Check) Outcome() string {
	if c.Status != CheckCompleted {
		return "running"
	}
	switch c.Conclusion {
	case ConclusionSuccess, ConclusionNeutral, ConclusionSkipped:
		return "passing"
	case ConclusionFailure, ConclusionError, ConclusionCancelled, ConclusionTimedOut, ConclusionActionRequired, ConclusionStartupFailure:
		return "failing"
	}
	// stale and anything GitHub adds later: not evidence either way.
	return "running"
}

// Review is one submitted (or pending) review, from the REST API.
type Review struct {
	ID int64 `json:"id"`
	// User is the reviewer's login.
	User string `json:"user"`
	// State is APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED or PENDING.
	State    ReviewState `json:"state"`
	Body     string      `json:"body"`
	CommitID string      `json:"commit_id"`
	// SubmittedAt is zero for a pending review.
	SubmittedAt time.Time `json:"submitted_at,omitzero"`
}

// Comment is a conversation comment or an inline review comment.
type Comment struct {
	ID     int64  `json:"id"`
	User   string `json:"user"`
	Body   string `json:"body"`
	Inline bool   `json:"inline"`
	// Path and Line locate an inline comment; ReviewID is its review.
	Path      string    `json:"path,omitempty"`
	Line      int       `json:"line,omitempty"`
	ReviewID  int64     `json:"review_id,omitempty"`
	UpdatedAt time.Time `json:"updated_at"`
}

func (c Comment) where() string {
	if !c.Inline {
		return "conversation"
	}
	if c.Line > 0 {
		return fmt.Sprintf("%s:%d", c.Path, c.Line)
	}
	return c.Path
}
