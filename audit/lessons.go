package audit

import (
	"github.com/gallivant/gallivant/ledger"
)

// lessonsFindings judges a commit's Gallivant-Lessons trailers
// (docs/learning.md): lessons are guidance in an agent's brief, so only a
// transition that hands one out — a dispatch, a rerun, a round, a
// verification repair — may name the lessons file version it carried, once, as
// lessons/<owner>/<name>.md@<blob>.
func lessonsFindings(c *Change, v func(string, string, ...any) Violation) []Violation {
	var vals []string
	for _, t := range c.Trailers() {
		if t.Key == ledger.TrailerLessons {
			vals = append(vals, t.Value)
		}
	}
	if len(vals) == 0 {
		return nil
	}
	var out []Violation
	if s, err := ledger.ParseSubject(c.Subject()); err == nil && !ledger.CarriesLessons(s.Kind) {
		out = append(out, v(SectionTrailers, "%s names lessons, but only a dispatch, a rerun, a round or a verification repair hands an agent a brief", ledger.TrailerLessons))
	}
	if len(vals) > 1 {
		out = append(out, v(SectionTrailers, "%s is given %d times; a dispatch carries one lessons file", ledger.TrailerLessons, len(vals)))
	}
	for _, val := range vals {
		if _, _, err := ledger.ParseLessonsTrailer(val); err != nil {
			out = append(out, v(SectionTrailers, "%s: %v", ledger.TrailerLessons, err))
		}
	}
	return out
}
