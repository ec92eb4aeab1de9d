// Package gitpack is the control store's git pack code: a Reader of raw
// objects from a repository's packs for history walks, Encode and
// WritePack for the one pack a pass writes, and Push, which sends such a
// pack over receive-pack with compare-and-swap on one reference.
//
// It exists because go-git's object storage and push cost more than what
// the store asks of them (see each type's doc for the figures); the store
// (internal/store) uses it through these few calls and go-git for the
// rest. Everything it reads from a pack or an index is untrusted: it
// never panics and never allocates what the data does not hold
// (FuzzRawPack, FuzzPatchDelta).
package gitpack
