package gatekeep

import (
	"fmt"
	"strconv"
	"strings"
	"time"
)

// This file keeps helpers only the tests use out of the package's API.

// AdmitPRs parses a set of pull request arguments and refuses, before any
// request is made (G-91, G-92): an unreadable argument, duplicates (a number
// and a URL of the same pull request), pull requests of different
// repositories, and more than max.
func AdmitPRs(args []string, defaultRepo string, max int) ([]PR, error) {
	return AdmitLegs(args, defaultRepo, max, nil)
}

// ParseSince reads the ledger's `since:` value: an RFC 3339 instant, then
// the ids already dispatched at it. The empty string is the zero cursor.
func ParseSince(s string) (Since, error) {
	f := strings.Fields(s)
	if len(f) == 0 {
		return Since{}, nil
	}
	at, err := time.Parse(time.RFC3339, f[0])
	if err != nil {
		return Since{}, fmt.Errorf("since %q: the first word must be an RFC 3339 time", s)
	}
	out := Since{At: at.UTC()}
	for _, w := range f[1:] {
		id, err := strconv.ParseInt(w, 10, 64)
		if err != nil || id <= 0 {
			return Since{}, fmt.Errorf("since %q: id %q is not a positive number", s, w)
		}
		out.IDs = append(out.IDs, id)
	}
	return out, nil
}

// HasLabel reports whether the pull request carries label. GitHub keeps
// one label per name in any case, so the name matches regardless of case.
func (d Digest) HasLabel(label string) bool {
	for _, l := range d.Labels {
		if strings.EqualFold(l, label) {
			return true
		}
	}
	return false
}
