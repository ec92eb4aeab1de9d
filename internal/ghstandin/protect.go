package ghstandin

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// ProtectSyntax is the shape of a protection spec, for error messages and
// help text.
const ProtectSyntax = "owner/name:branch[,reviews=N][,check=NAME]...[,strict][,ruleset][,bypass=APP]...[,enforce-admins][,allow-force-push]"

// protectExample is an accepted spec, quoted in every parse error.
const protectExample = "acme/control:main,ruleset,bypass=gallivant"

var (
	branchNameRE = regexp.MustCompile(`^[A-Za-z0-9._/-]+$`)
	appSlugRE    = regexp.MustCompile(`^[a-z0-9][a-z0-9-]{0,33}$`)
)

// ProtectError is a protection spec that does not parse: where (a 1-based
// character column), what was found and what was expected.
type ProtectError struct {
	Spec     string
	Column   int
	Found    string
	Expected string
}

func (e *ProtectError) Error() string {
	return fmt.Sprintf("%q, column %d: found %q, expected %s (syntax %s, e.g. %s)", e.Spec, e.Column, e.Found, e.Expected, ProtectSyntax, protectExample)
}

// ParseProtect parses a protection spec such as
// "acme/control:main,ruleset,bypass=gallivant": the repository and branch,
// then options. Without options the branch takes changes through pull
// requests with one approving review (reviews=0 drops that) and refuses
// force-pushes and deletions, as GitHub's classic protection does by
// default. check= names a required status check (repeatable) and strict
// requires heads to contain the base; ruleset makes the rules a repository
// ruleset, whose bypass list holds the Apps named with bypass= (repeatable);
// enforce-admins applies classic protection to administrators;
// allow-force-push permits force-pushes and deletions.
func ParseProtect(spec string) (fullName, branch string, p Protection, err error) {
	fail := func(col int, found, expected string) (string, string, Protection, error) {
		return "", "", Protection{}, &ProtectError{Spec: spec, Column: col, Found: found, Expected: expected}
	}
	head, opts, _ := strings.Cut(spec, ",")
	fullName, branch, perr := parseProtectHead(spec, head)
	if perr != nil {
		return "", "", Protection{}, perr
	}
	p.RequiredReviews = 1
	col := len(head) + 2
	if opts == "" {
		if strings.HasSuffix(spec, ",") {
			return fail(col, "", "an option after the comma")
		}
		return fullName, branch, p, nil
	}
	seen := map[string]bool{}
	for _, opt := range strings.Split(opts, ",") {
		if perr := p.option(spec, col, opt, seen); perr != nil {
			return "", "", Protection{}, perr
		}
		col += len(opt) + 1
	}
	switch {
	case len(p.BypassApps) > 0 && !p.Ruleset:
		return fail(1, spec, "ruleset with bypass= (a bypass list belongs to a ruleset)")
	case p.EnforceAdmins && p.Ruleset:
		return fail(1, spec, "enforce-admins without ruleset (nobody outside the bypass list bypasses a ruleset)")
	}
	return fullName, branch, p, nil
}

// parseProtectHead parses the "owner/name:branch" before a spec's options.
func parseProtectHead(spec, head string) (fullName, branch string, err *ProtectError) {
	fail := func(col int, found, expected string) (string, string, *ProtectError) {
		return "", "", &ProtectError{Spec: spec, Column: col, Found: found, Expected: expected}
	}
	fullName, branch, ok := strings.Cut(head, ":")
	switch {
	case !repoNameRE.MatchString(fullName) || strings.Contains(fullName, ".."):
		return fail(1, fullName, "a repository owner/name")
	case !ok:
		return fail(len(fullName)+1, "", `":" and a branch after the repository`)
	case !branchNameRE.MatchString(branch) || strings.Contains(branch, "..") || strings.HasPrefix(branch, "/") || strings.HasSuffix(branch, "/"):
		return fail(len(fullName)+2, branch, "a branch name (letters, digits, . _ / -)")
	}
	return fullName, branch, nil
}

// protectOption is one option a protection spec may name.
type protectOption struct {
	// value says the option is written key=VALUE; otherwise it is a bare key.
	value bool
	// repeat says the option may appear more than once.
	repeat bool
	// apply records the option in p, reporting false for a value it refuses.
	apply func(p *Protection, val string) bool
	// badValue, when set, is what a refused value is reported as expected
	// at the value's column; otherwise a refused value is an unknown option.
	badValue string
}

// protectOptions are the options of a protection spec, by key.
var protectOptions = map[string]protectOption{
	"reviews": {value: true, badValue: "a number of approving reviews from 0 to 6, as GitHub allows", apply: func(p *Protection, val string) bool {
		n, err := strconv.Atoi(val)
		if err != nil || n < 0 || n > 6 {
			return false
		}
		p.RequiredReviews = n
		return true
	}},
	"check": {value: true, repeat: true, apply: func(p *Protection, val string) bool {
		if val == "" || len(val) > 255 {
			return false
		}
		p.RequiredContexts = append(p.RequiredContexts, val)
		return true
	}},
	"bypass": {value: true, repeat: true, apply: func(p *Protection, val string) bool {
		if !appSlugRE.MatchString(val) {
			return false
		}
		p.BypassApps = append(p.BypassApps, val)
		return true
	}},
	"strict":           {apply: func(p *Protection, _ string) bool { p.Strict = true; return true }},
	"ruleset":          {apply: func(p *Protection, _ string) bool { p.Ruleset = true; return true }},
	"enforce-admins":   {apply: func(p *Protection, _ string) bool { p.EnforceAdmins = true; return true }},
	"allow-force-push": {apply: func(p *Protection, _ string) bool { p.AllowForcePushes = true; return true }},
}

// option parses the option opt of spec, found at column col, into p; seen
// holds the keys met before it.
func (p *Protection) option(spec string, col int, opt string, seen map[string]bool) *ProtectError {
	key, val, hasVal := strings.Cut(opt, "=")
	o, known := protectOptions[key]
	if seen[key] && !o.repeat {
		return &ProtectError{Spec: spec, Column: col, Found: opt, Expected: "each of reviews, strict, ruleset, enforce-admins and allow-force-push at most once"}
	}
	seen[key] = true
	switch {
	case !known || o.value != hasVal:
	case o.apply(p, val):
		return nil
	case o.badValue != "":
		return &ProtectError{Spec: spec, Column: col + len(key) + 1, Found: val, Expected: o.badValue}
	}
	return &ProtectError{Spec: spec, Column: col, Found: opt, Expected: "reviews=N, check=NAME, strict, ruleset, bypass=APP (an App slug), enforce-admins or allow-force-push"}
}
