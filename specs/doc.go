// Package specs holds the human-owned documents of a control repository: the
// gallivant.yaml configuration, specs (work items with numbered acceptance
// criteria), chains (ordered specs) and plans. It parses them into models,
// validates them with positioned diagnostics, and derives each spec's contract,
// its fingerprint and a readable contract diff.
//
// The package is pure: it takes bytes and parsed documents and returns values;
// it never touches the filesystem, the network or the clock.
//
// Stability: gallivant is before 1.0. What is stable is what people and
// agents write and read: the document grammars (docs/grammar.md), the
// ledger's text and the `loop:` commit subjects (docs/ledger.md), which
// existing control repositories keep reading. This package's Go API serves
// gallivant's own commands; it may change in any minor release, and each
// change is listed in CHANGELOG.md.
package specs
