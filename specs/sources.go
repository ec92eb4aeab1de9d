package specs

import (
	"fmt"
	"slices"

	"github.com/gallivant/gallivant/parse"
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

// SourceReader reads one `sources:` file of the snapshot a set is loaded
// from: ok is false when the snapshot holds no file at path. A file the
// reader refuses (too large, unreadable) is an error. Every reader of a
// snapshot — the pass, status and why, notify, the audit's seeds and
// check — gets a source's bytes through one, so all of them record the
// same contract.
type SourceReader func(path string) (data []byte, ok bool, err error)

// attachSources gives every spec of set its `sources:` files: from files,
// the snapshot's loaded documents, when they hold the path, else through
// read, which reads the same snapshot (a source need not lie under a
// scanned directory, nor be markdown). A path read reports missing is a
// warning at its `sources:` item; one read refuses is an error there and
// makes the spec invalid. With a nil read, a path the files do not hold
// is missing and not reported: the caller loaded only part of a snapshot.
func attachSources(set *Set, files []File, read SourceReader) parse.Diagnostics {
	byPath := make(map[string][]byte, len(files))
	for _, f := range files {
		byPath[f.Path] = f.Data
	}
	var diags parse.Diagnostics
	for _, p := range set.SpecPaths() {
		sp := set.Specs[p]
		if len(sp.Sources) == 0 {
			continue
		}
		at := func(path string) parse.Pos {
			for i, s := range sp.Sources {
				if s == path && i < len(sp.SourcePos) {
					return sp.SourcePos[i]
				}
			}
			return parse.Pos{Line: 1, Col: 1}
		}
		// The reader's errors become diagnostics, so WithSources never
		// fails here.
		set.Specs[p], _ = sp.WithSources(func(path string) ([]byte, bool, error) {
			if d, ok := byPath[path]; ok {
				return d, true, nil
			}
			if read == nil {
				return nil, false, nil
			}
			d, ok, err := read(path)
			switch {
			case err != nil:
				diags.Errorf(p, at(path), RuleSpecSource, "the source %q cannot be read: %v; the spec's contract holds its bytes, so the spec is not worked until it can be", path, err)
				set.Invalid[p] = true
				return nil, false, nil
			case !ok:
				diags.Add(p, at(path), parse.SeverityWarning, RuleSpecSource, "the source %q is not in the control repository; the contract records it as missing and the brief names it unquoted (for example, commit it, or remove it from `sources:`)", path)
			}
			return d, ok, nil
		})
	}
	return diags
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
