package specs

import (
	"fmt"
	"slices"
)

// SourceFile is one of a spec's `sources:` files as the control repository
// holds it at the snapshot the spec was read from.
type SourceFile struct {
	// Path is the repository-relative slash path from `sources:`.
	Path string
	// Data is the file's bytes; nil when Missing.
	Data []byte
	// Missing is true when the snapshot has no file at Path.
	Missing bool
}

// SourceMissing is the digest a contract records for a `sources:` path the
// control repository does not hold.
const SourceMissing = "missing"

// Digest is what the contract records for the file: the ShortHash of its
// bytes, or SourceMissing.
func (f SourceFile) Digest() string {
	if f.Missing {
		return SourceMissing
	}
	return ShortHash(string(f.Data))
}

// WithSources returns a copy of s whose SourceFiles are read through read,
// one per `sources:` path in order; read reports ok=false for a path the
// snapshot does not hold. s itself is not changed, so a spec shared by a
// parse cache stays as parsed. The first read error is returned.
func (s *Spec) WithSources(read func(path string) (data []byte, ok bool, err error)) (*Spec, error) {
	cp := *s
	cp.SourceFiles = make([]SourceFile, 0, len(s.Sources))
	for _, p := range s.Sources {
		data, ok, err := read(p)
		if err != nil {
			return nil, err
		}
		if !ok {
			cp.SourceFiles = append(cp.SourceFiles, SourceFile{Path: p, Missing: true})
			continue
		}
		cp.SourceFiles = append(cp.SourceFiles, SourceFile{Path: p, Data: slices.Clip(data)})
	}
	return &cp, nil
}

// sourceDigests returns one digest per `sources:` path: the attached file's
// (SourceFile.Digest), or "" for every path when no files were attached (a
// spec parsed on its own, outside a snapshot).
func (s *Spec) sourceDigests() []string {
	if s.SourceFiles == nil {
		return nil
	}
	out := make([]string, len(s.Sources))
	for i, p := range s.Sources {
		for _, f := range s.SourceFiles {
			if f.Path == p {
				out[i] = f.Digest()
				break
			}
		}
	}
	return out
}

// attachSources gives every spec of set its `sources:` files from files,
// the snapshot the set was loaded from.
func attachSources(set *Set, files []File) {
	byPath := make(map[string][]byte, len(files))
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	for p, sp := range set.Specs {
		if len(sp.Sources) == 0 {
			continue
		}
		// The reader never fails: the snapshot is in memory.
		set.Specs[p], _ = sp.WithSources(func(path string) ([]byte, bool, error) {
			d, ok := byPath[path]
			return d, ok, nil
		})
	}
}

// diffSourceBytes names the sources whose path stayed but whose bytes
// changed between two contracts that both carry source bytes.
func diffSourceBytes(old, cur Contract) []string {
	if old.SourceDigests == nil || cur.SourceDigests == nil {
		return nil
	}
	was := map[string]string{}
	for i, p := range old.Sources {
		if i < len(old.SourceDigests) {
			was[p] = old.SourceDigests[i]
		}
	}
	var out []string
	for i, p := range cur.Sources {
		prev, ok := was[p]
		if !ok || i >= len(cur.SourceDigests) || prev == cur.SourceDigests[i] {
			continue
		}
		out = append(out, fmt.Sprintf("source %q changed: %s -> %s", p, prev, cur.SourceDigests[i]))
	}
	return out
}

// DiffApproved is DiffContracts for a ledger whose recorded fingerprint is
// approved: old is the spec as it was at the approved spec commit (with its
// source bytes from that commit) and cur the current one. An entry approved
// before source bytes were part of the contract recorded the fingerprint of
// the text without them; that one change is named rather than reported as
// no readable difference.
func DiffApproved(approved string, old, cur Contract) ContractDiff {
	d := DiffContracts(old, cur)
	d.Old = approved
	if approved != old.Fingerprint() && approved == ShortHash(old.text(false)) {
		d.Lines = append([]string{fmt.Sprintf("the approved fingerprint %s predates source bytes in the contract; the bytes of %s are part of it now (approve them with a resnapshot request)", approved, quoteList(cur.Sources))}, d.Lines...)
	}
	return d
}
