package githubapi

// MergeableState is a pull request's mergeable_state as GitHub reports
// it, in lower case ("" while GitHub computes it).
type MergeableState string

// Mergeable states.
const (
	MergeableClean    MergeableState = "clean"
	MergeableDirty    MergeableState = "dirty"
	MergeableBehind   MergeableState = "behind"
	MergeableBlocked  MergeableState = "blocked"
	MergeableUnstable MergeableState = "unstable"
	MergeableHasHooks MergeableState = "has_hooks"
	MergeableDraft    MergeableState = "draft"
	MergeableUnknown  MergeableState = "unknown"
)

// ReviewState is a submitted review's state.
type ReviewState string

// Review states.
const (
	ReviewApproved         ReviewState = "APPROVED"
	ReviewChangesRequested ReviewState = "CHANGES_REQUESTED"
	ReviewCommented        ReviewState = "COMMENTED"
	ReviewDismissed        ReviewState = "DISMISSED"
	ReviewPending          ReviewState = "PENDING"
)

// CheckStatus is where a check run is.
type CheckStatus string

// Check run statuses.
const (
	CheckQueued     CheckStatus = "queued"
	CheckInProgress CheckStatus = "in_progress"
	CheckCompleted  CheckStatus = "completed"
)

// CheckConclusion is how a completed check run ended ("" while it runs).
type CheckConclusion string

// Check run conclusions GitHub reports.
const (
	ConclusionSuccess        CheckConclusion = "success"
	ConclusionFailure        CheckConclusion = "failure"
	ConclusionNeutral        CheckConclusion = "neutral"
	ConclusionCancelled      CheckConclusion = "cancelled"
	ConclusionSkipped        CheckConclusion = "skipped"
	ConclusionTimedOut       CheckConclusion = "timed_out"
	ConclusionActionRequired CheckConclusion = "action_required"
	ConclusionStartupFailure CheckConclusion = "startup_failure"
	ConclusionStale          CheckConclusion = "stale"
)

// StatusState is a commit status's state.
type StatusState string

// Commit status states.
const (
	StatusError   StatusState = "error"
	StatusFailure StatusState = "failure"
	StatusPending StatusState = "pending"
	StatusSuccess StatusState = "success"
)
