// Package reconcile is gallivant's controller: the observe → plan → apply
// pass that turns pushed markdown into `loop:` commits. It reads and
// writes the control repository through the internal store, talks to
// GitHub through the interface it declares (GitHubClient, implemented by
// the internal GitHub adapter), and hands tasks to agents through the
// interface it declares (Executor, implemented by the internal agent
// package's executors).
//
// The rules live in the pure packages below it (ledger, gatekeep, specs);
// this package gathers their inputs, applies their decisions, and orders the
// side effects so that a crash at any point leaves a state the next pass
// finishes.
//
// Stability: reconcile is the engine of the gallivant command, not a
// library. Options take interfaces declared here, but their methods name
// types of the module's internal adapters (the agent's Task, the GitHub
// adapter's PullRequest) and Options.Store is the internal control store,
// so a Reconciler can only be built inside this module. Its Go API may
// change in any release; what a pass does — the transitions, their
// subjects and the ledger they write — is the contract, documented in
// docs/reconcile.md and docs/delivery.md and proven by `gallivant verify`.
// Report, Snapshot and their JSON (gallivant reconcile --format json,
// gallivant status) are part of the CLI's contract (docs/cli.md).
package reconcile
