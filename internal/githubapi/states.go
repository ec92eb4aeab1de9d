package githubapi

// GitHub's mergeable_state, review states, check-run statuses and
// conclusions and commit-status states have one vocabulary, the core's:
// gatekeep.MergeState, ReviewState, CheckStatus, CheckConclusion and
// StatusState. The adapter types GitHub's strings as those once, where it
// reads them (github.go), and nothing downstream converts them again.
