// Package ledger is gallivant's state: one ledger per spec recording every
// row (acceptance criterion), attempt, decision and delivery fact, advanced
// only by `loop:` commits.
//
// The core of the grammar is pi-gauntlet's loop-engine ledger and is byte
// compatible with it: Format(Parse(x)) == x for every canonical ledger.
// gallivant adds two sections at the end, `## Delivery` (reconciler-owned
// key: value lines) and `## Requests` (a human-owned inbox).
//
// The package also holds the loop-engine rules (effective allowance, the
// ordered next-action table, targeting, escalation, stagnation), the
// transitions that advance a ledger (each returning the new ledger and its
// commit), the admission of an agent's return commit, stop texts and the task
// brief handed to an agent. It is pure: no I/O and no clock; callers pass
// `now` where time matters.
package ledger
