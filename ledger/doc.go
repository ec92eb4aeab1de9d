// Package ledger is gallivant's state: one ledger per spec recording every
// row (acceptance criterion), attempt, decision and delivery fact, advanced
// only by `loop:` commits.
//
// The core of the grammar is pi-gauntlet's loop-engine ledger and is byte
// compatible with it: Format(Parse(x)) == x for every canonical ledger.
// gallivant adds three sections at the end, `## Delivery` (reconciler-owned
// key: value lines), `## Proof` (gallivant's replays of the done rows'
// evidence commands) and `## Requests` (a human-owned inbox).
//
// The package also holds the loop-engine rules (effective allowance, the
// ordered next-action table, targeting, escalation, stagnation), the
// transitions that advance a ledger (each returning the new ledger and its
// commit), the admission of an agent's return commit, stop texts and the task
// brief handed to an agent. It is pure: no I/O and no clock; callers pass
// `now` where time matters.
//
// Stability: gallivant is before 1.0. What is stable is what people and
// agents write and read: the document grammars (docs/grammar.md), the
// ledger's text and the `loop:` commit subjects (docs/ledger.md), which
// existing control repositories keep reading. This package's Go API serves
// gallivant's own commands; it may change in any minor release, and each
// change is listed in CHANGELOG.md.
package ledger
