package reconcile

// Request sources: where a performed request came from (docs/requests.md
// "Where a request came from").
const (
	// SourceLedger is a request written under the ledger's `## Requests`.
	SourceLedger RequestSource = "ledger"
	// SourcePullRequest is a `/gallivant <request>` command posted on a
	// pull request.
	SourcePullRequest RequestSource = "pull-request"
	// SourceDashboard: a box ticked on the dashboard issue.
	SourceDashboard RequestSource = "dashboard-issue"
)

// RequestSource is the closed set of places a request comes from.
type RequestSource string

// PerformedRequest is one request a transition performed, as the
// control history records it: the request, the commit that performed it,
// and where the request came from — the ledger, a comment on a pull
// request (by whom, which pull request, which comment), or a box of the
// dashboard issue (by whom, which issue, which box).
type PerformedRequest struct {
	Request string        `json:"request"`
	Source  RequestSource `json:"source"`
	Subject string        `json:"subject"`
	Commit  string        `json:"commit"`
	// By, PR and Comment are a pull-request command's: the login that
	// posted it, the pull request, and the comment's URL (or its id when
	// the commit names no URL).
	By      string `json:"by,omitempty"`
	PR      string `json:"pr,omitempty"`
	Comment string `json:"comment,omitempty"`
	// Box is a dashboard tick's box id; PR is then the dashboard issue.
	Box string `json:"box,omitempty"`
}
