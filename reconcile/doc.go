// Package reconcile is gallivant's controller: the observe → plan → apply
// pass that turns pushed markdown into `loop:` commits. It reads and
// writes the control repository through package store, talks to GitHub
// through the interface it declares (GitHubClient, implemented by package
// githubapi), and hands tasks to agents through package agent.
//
// The rules live in the pure packages below it (ledger, gatekeep, specs);
// this package gathers their inputs, applies their decisions, and orders the
// side effects so that a crash at any point leaves a state the next pass
// finishes.
package reconcile
