package gatekeep

// GitHub's states as a digest carries them: typed, so that the rules
// compare them with these constants and never with raw strings. They are
// the one vocabulary of these states: internal/githubapi types GitHub's
// answers as them where it reads them.

// MergeState is GitHub's mergeable_state, in lower case.
type MergeState string

// Merge states GitHub reports; "" is not computed yet, like MergeUnknown.
const (
	MergeClean    MergeState = "clean"
	MergeDirty    MergeState = "dirty"
	MergeBehind   MergeState = "behind"
	MergeBlocked  MergeState = "blocked"
	MergeUnstable MergeState = "unstable"
	MergeHasHooks MergeState = "has_hooks"
	MergeDraft    MergeState = "draft"
	MergeUnknown  MergeState = "unknown"
)

// Computed reports whether GitHub has computed the merge state.
func (m MergeState) Computed() bool { return m != "" && m != MergeUnknown }

// ReviewState is a review's state.
type ReviewState string

// Review states.
const (
	ReviewApproved         ReviewState = "APPROVED"
	ReviewChangesRequested ReviewState = "CHANGES_REQUESTED"
	ReviewCommented        ReviewState = "COMMENTED"
	ReviewDismissed        ReviewState = "DISMISSED"
	ReviewPending          ReviewState = "PENDING"
)

// CheckStatus is where a check run is: queued, in progress or completed;
// a commit status is completed or pending.
type CheckStatus string

// Check statuses.
const (
	CheckQueued     CheckStatus = "queued"
	CheckInProgress CheckStatus = "in_progress"
	CheckCompleted  CheckStatus = "completed"
	CheckPending    CheckStatus = "pending"
)

// CheckConclusion is how a completed check ended; a commit status's state
// (success, failure, error) is its conclusion.
type CheckConclusion string

// Check conclusions. Anything GitHub adds later is no evidence either way.
const (
	ConclusionSuccess        CheckConclusion = "success"
	ConclusionNeutral        CheckConclusion = "neutral"
	ConclusionSkipped        CheckConclusion = "skipped"
	ConclusionFailure        CheckConclusion = "failure"
	ConclusionError          CheckConclusion = "error"
	ConclusionCancelled      CheckConclusion = "cancelled"
	ConclusionTimedOut       CheckConclusion = "timed_out"
	ConclusionActionRequired CheckConclusion = "action_required"
	ConclusionStartupFailure CheckConclusion = "startup_failure"
	ConclusionStale          CheckConclusion = "stale"
)

// StatusState is a commit status's state.
type StatusState string

// Commit status states. A status's success, failure or error is its
// conclusion (StatusCheck); pending is a check still running.
const (
	StatusError   StatusState = "error"
	StatusFailure StatusState = "failure"
	StatusPending StatusState = "pending"
	StatusSuccess StatusState = "success"
)
