package lessons

import (
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Source is one `sources:` entry: a pull request or issue
// (`owner/name#12`) or the URL of one of its comments or reviews.
type Source struct {
	// Raw is the reference as written.
	Raw string
	// Pos is where it is written.
	Pos parse.Pos
	// Repo and Number name the pull request or issue.
	Repo   string
	Number int
	// Anchor is the URL's fragment (`discussion_r1234`,
	// `issuecomment-56`, `pullrequestreview-78`), "" for the whole thread.
	Anchor string
}

// String returns the reference as written.
func (s Source) String() string { return s.Raw }

var (
	refRE    = regexp.MustCompile(`^([^#\s]+)#([1-9][0-9]{0,9})$`)
	anchorRE = regexp.MustCompile(`^(?:discussion_r[1-9][0-9]{0,19}|issuecomment-[1-9][0-9]{0,19}|pullrequestreview-[1-9][0-9]{0,19}|r[1-9][0-9]{0,19})$`)
)

// NewSource parses one source reference, with a reason when it is not one.
func NewSource(s string) (Source, string) {
	if len(s) > MaxEntry {
		return Source{}, "longer than the limit"
	}
	if m := refRE.FindStringSubmatch(s); m != nil {
		if !specs.ValidRepo(m[1]) {
			return Source{}, "not an owner/name repository before `#`"
		}
		n, _ := strconv.Atoi(m[2])
		return Source{Raw: s, Repo: m[1], Number: n}, ""
	}
	if !strings.HasPrefix(s, "https://") {
		return Source{}, "neither `owner/name#<number>` nor an https URL"
	}
	u, err := url.Parse(s)
	if err != nil || u.Host == "" || u.User != nil || u.RawQuery != "" {
		return Source{}, "not a plain https URL"
	}
	segs := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(segs) == 5 && segs[4] == "files" {
		segs = segs[:4]
	}
	if len(segs) != 4 || (segs[2] != "pull" && segs[2] != "issues") || !specs.ValidRepo(segs[0]+"/"+segs[1]) {
		return Source{}, "not the URL of a pull request or issue (https://<host>/<owner>/<name>/pull/<number>)"
	}
	n, err := strconv.Atoi(segs[3])
	if err != nil || n < 1 || len(segs[3]) > 10 || segs[3][0] == '0' {
		return Source{}, "the pull request number is not a positive whole number"
	}
	if u.Fragment != "" && !anchorRE.MatchString(u.Fragment) {
		return Source{}, "its `#` anchor is not a comment's or review's (discussion_r<id>, issuecomment-<id>, pullrequestreview-<id>)"
	}
	return Source{Raw: s, Repo: segs[0] + "/" + segs[1], Number: n, Anchor: u.Fragment}, ""
}

// parseSources reads a `sources:` line.
func parseSources(file string, ds *parse.Diagnostics, kv parse.KeyValue) ([]Source, bool) {
	return parseList(file, ds, kv, listForm{rule: RuleSources, tooMany: "the sources list %d references; at most %d are allowed",
		bad: "%q is not a source: %s; expected pull requests or comment URLs, as in `%s`", example: exampleSources},
		NewSource, func(s *Source, at parse.Pos) { s.Pos = at })
}

// utf8ValidEnd reports whether s ends on a whole character.
func utf8ValidEnd(s string) bool {
	r, size := utf8.DecodeLastRuneInString(s)
	return r != utf8.RuneError || size > 1
}
