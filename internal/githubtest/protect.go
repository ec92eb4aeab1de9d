package githubtest

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
	fullName, branch, ok := strings.Cut(head, ":")
	switch {
	case !repoNameRE.MatchString(fullName) || strings.Contains(fullName, ".."):
		return fail(1, fullName, "a repository owner/name")
	case !ok:
		return fail(len(fullName)+1, "", `":" and a branch after the repository`)
	case !branchNameRE.MatchString(branch) || strings.Contains(branch, "..") || strings.HasPrefix(branch, "/") || strings.HasSuffix(branch, "/"):
		return fail(len(fullName)+2, branch, "a branch name (letters, digits, . _ / -)")
	}
	p.RequiredReviews = 1
	col := len(head) + 2
	if opts == "" && strings.HasSuffix(spec, ",") {
		return fail(col, "", "an option after the comma")
	}
	seen := map[string]bool{}
	for _, opt := range strings.Split(opts, ",") {
		if opts == "" {
			break
		}
		key, val, hasVal := strings.Cut(opt, "=")
		if seen[key] && key != "check" && key != "bypass" {
			return fail(col, opt, "each of reviews, strict, ruleset, enforce-admins and allow-force-push at most once")
		}
		seen[key] = true
		switch {
		case key == "reviews" && hasVal:
			n, err := strconv.Atoi(val)
			if err != nil || n < 0 || n > 6 {
				return fail(col+len("reviews="), val, "a number of approving reviews from 0 to 6, as GitHub allows")
			}
			p.RequiredReviews = n
		case key == "check" && hasVal && val != "" && len(val) <= 255:
			p.RequiredContexts = append(p.RequiredContexts, val)
		case key == "bypass" && hasVal && appSlugRE.MatchString(val):
			p.BypassApps = append(p.BypassApps, val)
		case key == "strict" && !hasVal:
			p.Strict = true
		case key == "ruleset" && !hasVal:
			p.Ruleset = true
		case key == "enforce-admins" && !hasVal:
			p.EnforceAdmins = true
		case key == "allow-force-push" && !hasVal:
			p.AllowForcePushes = true
		default:
			return fail(col, opt, "reviews=N, check=NAME, strict, ruleset, bypass=APP (an App slug), enforce-admins or allow-force-push")
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
