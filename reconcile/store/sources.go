package store

import (
	"fmt"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// SourceReader is the one reader of a spec's `sources:` files from the
// control repository at commit (specs.SourceReader): the pass, status and
// why, notify, the approved spec and the audit's seeds all read a source
// through it, so each sees the same bytes and records the same contract. A
// source is bounded like every control document: a file over
// parse.MaxSize bytes is refused, not cut.
func (s *Store) SourceReader(commit string) specs.SourceReader {
	return func(p string) ([]byte, bool, error) {
		data, ok, err := s.ReadFile(commit, p)
		if err != nil || !ok {
			return nil, ok, err
		}
		if len(data) > parse.MaxSize {
			return nil, false, fmt.Errorf("the file is over %d bytes, the limit of a control document", parse.MaxSize)
		}
		return data, true, nil
	}
}
