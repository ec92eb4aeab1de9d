// Package parse turns markdown documents into a positioned document model and
// defines the Diagnostic type every gallivant grammar reports with.
//
// It knows no gallivant concept. Markdown is parsed with goldmark (GFM tables
// and task lists enabled) and frontmatter is split as adrg/frontmatter splits
// it and decoded into yaml.v3 nodes so that every key keeps its position
// (plain `key: value` lines directly into the nodes yaml.v3 would build). Inputs with
// CRLF line endings are normalized to LF before anything else, so LF and CRLF
// copies of a document produce the same model.
//
// Parsing never fails and never panics: Parse always returns a Document, and
// problems with the bytes themselves (encoding, size, nesting, frontmatter
// syntax) are reported as diagnostics on it. Positions are 1-based lines and
// 1-based columns counted in characters (runes), not bytes.
//
// Stability: gallivant is before 1.0. What is stable is what people and
// agents write and read: the document grammars (docs/grammar.md), the
// ledger's text and the `loop:` commit subjects (docs/ledger.md), which
// existing control repositories keep reading. This package's Go API serves
// gallivant's own commands; it may change in any minor release, and each
// change is listed in CHANGELOG.md.
package parse
