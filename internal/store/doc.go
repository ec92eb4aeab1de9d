// Package store is gallivant's control-repository store: a go-git clone of
// the control branch kept under the cache directory (one clone per slot, so
// concurrent reconcilers never share one), or the person's own checkout.
//
// A pass reads documents from the fetched head, writes each admitted
// transition as one commit on top of the tip, and pushes with
// compare-and-swap: a moved branch is ErrPushRejected and the pass starts
// over; the store never force-pushes. Log and History read a path's or the
// branch's history for `gallivant log` and `gallivant verify`; LoopVersions
// finds the newest loop: version of each ledger for the tamper check.
//
// Credentials in a remote URL are split off into the transport's auth and
// never appear in an error, a log line or a file the store writes.
package store
