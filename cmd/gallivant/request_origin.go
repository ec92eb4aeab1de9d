package main

import (
	"fmt"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/reconcile/store"
)

// requestOrigins bounds how many of a ledger's newest commits `why` reads
// for the last performed request.
const requestOrigins = 100

// lastRequest is `why`'s line on the last request performed on the
// ledger and where it came from (docs/requests.md): "" when none of its
// newest commits performed one.
func lastRequest(st *store.Store, ledgerPath string) (string, error) {
	entries, err := st.Log(ledgerPath, requestOrigins)
	if err != nil {
		return "", err
	}
	for _, e := range entries {
		if line, ok := requestOrigin(e.Subject, e.Message); ok {
			return line, nil
		}
	}
	return "", nil
}

// requestOrigin describes a transition that performed a request: the
// request and whether it was written under `## Requests`, posted on a
// pull request (by whom, which comment) or ticked on the dashboard issue
// (by whom, which box). ok is false for any other commit.
func requestOrigin(subject, message string) (line string, ok bool) {
	ts := ledger.ParseTrailers(message)
	trailer := func(key string) string { return ledger.TrailerValue(ts, key) }
	req := trailer(ledger.TrailerRequest)
	sub, err := ledger.ParseSubject(subject)
	if req == "" || err != nil {
		return "", false
	}
	if sub.Kind != ledger.KindRequest {
		return fmt.Sprintf("last request: %q, from the ledger's ## Requests (%s)", req, subject), true
	}
	if box := trailer(ledger.TrailerBox); box != "" {
		return fmt.Sprintf("last request: %q, from a box of the dashboard issue %s ticked by @%s (box %s)", req, sub.PR, sub.By, box), true
	}
	where := "comment " + trailer(ledger.TrailerCommentID)
	if url := trailer(ledger.TrailerComment); url != "" {
		where = url
	}
	return fmt.Sprintf("last request: %q, from a comment by @%s on %s (%s)", req, sub.By, sub.PR, where), true
}
