// Package reconcile is gallivant's controller and all of its I/O: the
// control-repository store (go-git), the GitHub adapter (go-github), the
// executors that hand tasks to agents, and the observe → plan → apply pass
// that turns pushed markdown into `loop:` commits.
//
// The rules live in the pure packages below it (ledger, gatekeep, specs);
// this package gathers their inputs, applies their decisions, and orders the
// side effects so that a crash at any point leaves a state the next pass
// finishes.
package reconcile
