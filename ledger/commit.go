package ledger

import (
	"fmt"
	"strings"
)

// Trailer is one git trailer of a transition commit.
type Trailer struct{ Key, Value string }

// Trailer keys gallivant writes.
const (
	TrailerSpec    = "Gallivant-Spec"
	TrailerControl = "Gallivant-Control"
	TrailerPR      = "Gallivant-PR"
	TrailerHead    = "Gallivant-Head"
	TrailerRequest = "Gallivant-Request"
	TrailerChain   = "Gallivant-Chain"
	// TrailerDispatch names the reconciler pass that wrote a write-ahead
	// dispatch: two reconcilers that dispatch one row in one second
	// otherwise write byte-identical commits, and the second push, finding
	// its commit already there, would start a second agent.
	TrailerDispatch = "Gallivant-Dispatch"
)

// Commit is the commit a transition makes on the control branch: an exact
// subject, one human sentence, optional further text, and trailers.
type Commit struct {
	Subject  string
	Sentence string
	// Text is further body text, such as a stop's explanation.
	Text     string
	Trailers []Trailer
}

// Message renders the full commit message. extra trailers (the spec path and
// the control commit the pass planned from) come first.
func (c Commit) Message(extra ...Trailer) string {
	var b strings.Builder
	b.WriteString(c.Subject + "\n\n" + c.Sentence + "\n")
	if c.Text != "" {
		b.WriteString("\n" + strings.TrimRight(c.Text, "\n") + "\n")
	}
	ts := append(append([]Trailer{}, extra...), c.Trailers...)
	if len(ts) > 0 {
		b.WriteString("\n")
		for _, t := range ts {
			fmt.Fprintf(&b, "%s: %s\n", t.Key, oneLine(t.Value))
		}
	}
	return b.String()
}

// ParseTrailers returns a commit message's Gallivant- trailers in order,
// the inverse of Message's trailer block. Any line shaped
// `Gallivant-<Key>: <value>` with a key of letters, digits and hyphens
// counts: gallivant writes them last, and a
// forged early one is as binding as a late one (the audit judges it).
func ParseTrailers(message string) []Trailer {
	var out []Trailer
	for _, ln := range strings.Split(message, "\n") {
		ln = strings.TrimRight(ln, "\r")
		if !strings.HasPrefix(ln, "Gallivant-") {
			continue
		}
		if k, v, ok := strings.Cut(ln, ": "); ok && trailerKey(k) {
			out = append(out, Trailer{Key: k, Value: v})
		}
	}
	return out
}

// trailerKey reports whether k is shaped like a trailer key: letters,
// digits and hyphens, as git's trailers are; prose that merely starts a
// line with "Gallivant-" is not one.
func trailerKey(k string) bool {
	for _, r := range k {
		if !(r == '-' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9') {
			return false
		}
	}
	return true
}

// TrailerValue returns the first value of key among ts, "" when absent.
func TrailerValue(ts []Trailer, key string) string {
	for _, t := range ts {
		if t.Key == key {
			return t.Value
		}
	}
	return ""
}

// oneLine keeps a trailer value on one line whatever it holds.
func oneLine(s string) string {
	return strings.Join(strings.FieldsFunc(s, func(r rune) bool { return r == '\n' || r == '\r' }), " ")
}

func short(sha string) string {
	if len(sha) > 7 {
		return sha[:7]
	}
	return sha
}
