package reconcile

import (
	"fmt"

	"github.com/gallivant/gallivant/ledger"
)

// RequestOrigin reads the request a transition performed and where it
// came from, off its subject and trailers (docs/requests.md "Where a
// request came from"); ok is false for a commit that performed none.
// Commit is left for the caller.
func RequestOrigin(subject, message string) (PerformedRequest, bool) {
	ts := ledger.ParseTrailers(message)
	trailer := func(key string) string { return ledger.TrailerValue(ts, key) }
	req := trailer(ledger.TrailerRequest)
	sub, err := ledger.ParseSubject(subject)
	if req == "" || err != nil {
		return PerformedRequest{}, false
	}
	r := PerformedRequest{Request: req, Source: SourceLedger, Subject: subject}
	if sub.Kind == ledger.KindRequest {
		r.Source, r.By, r.PR = SourcePullRequest, sub.By, sub.PR.String()
		r.Comment = "comment " + trailer(ledger.TrailerCommentID)
		if url := trailer(ledger.TrailerComment); url != "" {
			r.Comment = url
		}
		if box := trailer(ledger.TrailerBox); box != "" {
			r.Source, r.Comment, r.Box = SourceDashboard, "", box
		}
	}
	return r, true
}

// Words says a performed request and where it came from, as `why`,
// `status SPEC` and the dashboard issue print it.
func (r PerformedRequest) Words() string {
	switch r.Source {
	case SourcePullRequest:
		return fmt.Sprintf("%q, from a comment by @%s on %s (%s)", r.Request, r.By, r.PR, r.Comment)
	case SourceDashboard:
		return fmt.Sprintf("%q, from a box of the dashboard issue %s ticked by @%s (box %s)", r.Request, r.PR, r.By, r.Box)
	}
	return fmt.Sprintf("%q, from the ledger's ## Requests (%s)", r.Request, r.Subject)
}

// requestsShown bounds how many of a ledger's newest commits the
// dashboard reads for the last request performed on it.
const requestsShown = 100

// lastRequestWords is the last request performed on the entry's ledger
// and where it came from, in Words; "" when none of its newest commits
// performed one.
func (p *passState) lastRequestWords(e *entry) (string, error) {
	log, err := p.Store.Log(p.ctx, e.ledgerPath, requestsShown)
	if err != nil {
		return "", err
	}
	for _, c := range log {
		if r, ok := RequestOrigin(c.Subject, c.Message); ok {
			return r.Words(), nil
		}
	}
	return "", nil
}
