// Package audit proves a control repository's history: for every commit that
// changes a ledger it decides whether the change is exactly one the
// reconciler could have made (a `loop:` transition, replayed on the parent
// ledger with the transition functions of ledger and gatekeep as the
// oracle) or one a person may make (the human-owned `## Requests` section).
//
// It sits between gatekeep and reconcile in the dependency order
// (cmd → reconcile → audit → gatekeep → ledger → specs → parse): it needs
// gatekeep's pull-request transitions and ledger's row-loop transitions, and
// nothing in it touches git, the clock or the disk. The caller walks the
// history and hands each change in as plain values (docs/verify.md).
package audit
