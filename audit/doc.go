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
//
// Stability: gallivant is before 1.0. What is stable is what people and
// agents write and read: the document grammars (docs/grammar.md), the
// ledger's text and the `loop:` commit subjects (docs/ledger.md), which
// existing control repositories keep reading. This package's Go API serves
// gallivant's own commands; it may change in any minor release, and each
// change is listed in CHANGELOG.md.
package audit
