package specs

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/parse"
)

// Adopting a pull request (issue 34): a spec whose frontmatter names an
// existing pull request, `pr: owner/name#N`, is delivered on that pull
// request's head branch instead of a branch of gallivant's own
// (docs/grammar.md, docs/delivery.md "Adopting a pull request").

// RuleSpecPR is the rule id of the `pr:` frontmatter key.
const RuleSpecPR = "spec/pr"

// PRRef is the pull request a spec adopts: Number in Repo.
type PRRef struct {
	Repo   string
	Number int
	// Pos is where the value is written.
	Pos parse.Pos `json:"-"`
}

// IsZero reports whether the spec adopts no pull request.
func (r PRRef) IsZero() bool { return r.Repo == "" && r.Number == 0 }

// String renders the reference as `owner/name#N`.
func (r PRRef) String() string { return r.Repo + "#" + strconv.Itoa(r.Number) }

// ParsePRRef reads `owner/name#N`, N a whole number from 1 without a
// leading zero. The error says what was expected, with an example.
func ParsePRRef(s string) (PRRef, error) {
	repo, num, ok := strings.Cut(s, "#")
	if !ok || !ValidRepo(repo) || num == "" || len(num) > 9 || num[0] == '0' || strings.Trim(num, "0123456789") != "" {
		return PRRef{}, fmt.Errorf("pr must name a pull request as owner/name#N, e.g. acme/shop#12, got %q", s)
	}
	n, err := strconv.Atoi(num)
	if err != nil {
		return PRRef{}, fmt.Errorf("pr must name a pull request as owner/name#N, e.g. acme/shop#12, got %q: %w", s, err)
	}
	return PRRef{Repo: repo, Number: n}, nil
}

// readPR is the reader of the `pr:` key.
func readPR(e frontEntry, s *Spec) {
	v, ok := e.str("a pull request as owner/name#N")
	if !ok {
		return
	}
	r, err := ParsePRRef(v)
	if err != nil {
		e.p.errorf(e.vat, RuleSpecPR, "%v", err)
		return
	}
	r.Pos = e.vat
	s.PR = r
}

// checkPR reports an adopted pull request the spec cannot deliver on: one
// outside the spec's repository (gallivant opens and works pull requests
// into that repository only), or one named by a coordinated spec, which
// delivers one pull request per leg.
func (p *specParser) checkPR(s *Spec) {
	switch {
	case s.PR.IsZero():
	case s.Coordinated():
		p.errorf(s.PR.Pos, RuleSpecPR, "pr names %s, but a coordinated spec delivers one pull request per leg and cannot adopt one; remove pr: or the legs", s.PR)
	case s.Repo != "" && !strings.EqualFold(s.PR.Repo, s.Repo):
		p.errorf(s.PR.Pos, RuleSpecPR, "pr names %s, a pull request of %s, but the spec delivers into %s; name a pull request into the spec's repository, e.g. %s#%d", s.PR, s.PR.Repo, s.Repo, s.Repo, s.PR.Number)
	}
}
