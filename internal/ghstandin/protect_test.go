package ghstandin_test

import (
	"errors"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/google/go-cmp/cmp"
)

func TestParseProtect(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec, repo, branch string
		want               ghstandin.Protection
	}{
		{"acme/api:main", "acme/api", "main", ghstandin.Protection{RequiredReviews: 1}},
		{"acme/control:main,ruleset,bypass=gallivant", "acme/control", "main", ghstandin.Protection{RequiredReviews: 1, Ruleset: true, BypassApps: []string{"gallivant"}}},
		{"acme/api:release/v1,reviews=2,check=ci,check=lint job,strict", "acme/api", "release/v1",
			ghstandin.Protection{RequiredReviews: 2, RequiredContexts: []string{"ci", "lint job"}, Strict: true}},
		{"acme/api:main,reviews=0,allow-force-push,enforce-admins", "acme/api", "main", ghstandin.Protection{AllowForcePushes: true, EnforceAdmins: true}},
	} {
		repo, branch, p, err := ghstandin.ParseProtect(tc.spec)
		if err != nil {
			t.Errorf("ParseProtect(%q): %v", tc.spec, err)
			continue
		}
		if diff := cmp.Diff([]any{tc.repo, tc.branch, tc.want}, []any{repo, branch, p}); diff != "" {
			t.Errorf("ParseProtect(%q) (-want +got):\n%s", tc.spec, diff)
		}
	}
}

func TestParseProtectErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		spec   string
		column int
		found  string
		expect string
	}{
		{"acme:main", 1, "acme", "owner/name"},
		{"acme/api", 9, "", `":" and a branch`},
		{"acme/api:", 10, "", "a branch name"},
		{"acme/api:ma in", 10, "ma in", "a branch name"},
		{"acme/api:main,", 15, "", "an option after the comma"},
		{"acme/api:main,reviews=x", 23, "x", "from 0 to 6"},
		{"acme/api:main,strict,rules", 22, "rules", "reviews=N, check=NAME"},
		{"acme/api:main,strict,strict", 22, "strict", "at most once"},
		{"acme/api:main,bypass=gallivant", 1, "acme/api:main,bypass=gallivant", "a bypass list belongs to a ruleset"},
		{"acme/api:main,ruleset,enforce-admins", 1, "acme/api:main,ruleset,enforce-admins", "enforce-admins without ruleset"},
		{"acme/api:main,bypass=Not_A_Slug,ruleset", 15, "bypass=Not_A_Slug", "an App slug"},
	} {
		_, _, _, err := ghstandin.ParseProtect(tc.spec)
		var pe *ghstandin.ProtectError
		if !errors.As(err, &pe) {
			t.Errorf("ParseProtect(%q) = %v, want a ProtectError", tc.spec, err)
			continue
		}
		if pe.Column != tc.column || pe.Found != tc.found || !strings.Contains(pe.Expected, tc.expect) {
			t.Errorf("ParseProtect(%q): column %d found %q expected %q; want column %d found %q expected containing %q", tc.spec, pe.Column, pe.Found, pe.Expected, tc.column, tc.found, tc.expect)
		}
		if !strings.Contains(err.Error(), "e.g. acme/control:main,ruleset,bypass=gallivant") {
			t.Errorf("ParseProtect(%q) error names no accepted example: %v", tc.spec, err)
		}
	}
}

func FuzzParseProtect(f *testing.F) {
	for _, s := range []string{"acme/api:main", "acme/control:main,ruleset,bypass=gallivant", "a/b:c,reviews=2,check=x,strict", "", ":,", "a/b:c,,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, spec string) {
		repo, branch, p, err := ghstandin.ParseProtect(spec)
		if err != nil {
			var pe *ghstandin.ProtectError
			if !errors.As(err, &pe) || pe.Column < 1 {
				t.Fatalf("ParseProtect(%q): %v is not a ProtectError with a column", spec, err)
			}
			return
		}
		if repo == "" || branch == "" || p.RequiredReviews < 0 || p.RequiredReviews > 6 || (len(p.BypassApps) > 0 && !p.Ruleset) {
			t.Fatalf("ParseProtect(%q) accepted %q %q %+v", spec, repo, branch, p)
		}
	})
}
