package main

import (
	"context"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/reconcile"
)

// requestOrigins bounds how many of a ledger's newest commits `why` and
// `status SPEC` read for the requests performed on it.
const requestOrigins = 100

// performedShown bounds how many performed requests `status SPEC` lists.
const performedShown = 10

// lastRequest is `why`'s line on the last request performed on the
// ledger and where it came from (docs/requests.md): "" when none of its
// newest commits performed one.
func lastRequest(ctx context.Context, st *store.Store, ledgerPath string) (string, error) {
	rs, err := performedRequests(ctx, st, ledgerPath, 1)
	if err != nil || len(rs) == 0 {
		return "", err
	}
	return "last request: " + originWords(rs[0]), nil
}

// performedRequests lists the requests the ledger's newest commits
// performed, newest first, at most limit of them.
func performedRequests(ctx context.Context, st *store.Store, ledgerPath string, limit int) ([]reconcile.PerformedRequest, error) {
	entries, err := st.Log(ctx, ledgerPath, requestOrigins)
	if err != nil {
		return nil, err
	}
	var out []reconcile.PerformedRequest
	for _, e := range entries {
		if r, ok := originOf(e.Subject, e.Message); ok {
			r.Commit = e.SHA
			out = append(out, r)
			if len(out) == limit {
				break
			}
		}
	}
	return out, nil
}

// requestOrigin describes a transition that performed a request: the
// request and whether it was written under `## Requests`, posted on a
// pull request (by whom, which comment) or ticked on the dashboard issue
// (by whom, which box). ok is false for any other commit.
func requestOrigin(subject, message string) (line string, ok bool) {
	r, ok := originOf(subject, message)
	if !ok {
		return "", false
	}
	return "last request: " + originWords(r), true
}

// originOf reads the request a transition performed and where it came
// from, off its subject and trailers.
func originOf(subject, message string) (reconcile.PerformedRequest, bool) {
	return reconcile.RequestOrigin(subject, message)
}

// originWords says a performed request and where it came from.
func originWords(r reconcile.PerformedRequest) string { return r.Words() }
