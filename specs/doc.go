// Package specs holds the human-owned documents of a control repository: the
// gallivant.yaml configuration, specs (work items with numbered acceptance
// criteria), chains (ordered specs) and plans. It parses them into models,
// validates them with positioned diagnostics, and derives each spec's contract,
// its fingerprint and a readable contract diff.
//
// The package is pure: it takes bytes and parsed documents and returns values;
// it never touches the filesystem, the network or the clock.
package specs
