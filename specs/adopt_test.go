package specs

import (
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
)

const adoptBody = "# Adopt\n\n## Acceptance criteria\n1. It works.\n"

const adoptLegs = "\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1\n### Leg: web\nrepo: acme/web\nscope: none\n"

// TestSpecPR pins the `pr:` frontmatter key (issue 34): a pull request of
// the spec's repository is read with its position; anything else is one
// positioned spec/pr diagnostic naming what is expected, with an example.
func TestSpecPR(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		front string
		legs  bool
		want  PRRef
		diags []string
	}{
		{name: "none", front: "repo: acme/shop\n"},
		{name: "adopts", front: "repo: acme/shop\npr: acme/shop#12\n", want: PRRef{Repo: "acme/shop", Number: 12, Pos: parse.Pos{Line: 3, Col: 5}}},
		{name: "defaults repo", front: "pr: a/b#3\n", want: PRRef{Repo: "a/b", Number: 3, Pos: parse.Pos{Line: 2, Col: 5}}},
		{name: "no number", front: "pr: acme/shop\n",
			diags: []string{`f.md:2:5: error: spec/pr: pr must name a pull request as owner/name#N, e.g. acme/shop#12, got "acme/shop"`}},
		{name: "zero", front: "pr: acme/shop#0\n",
			diags: []string{`f.md:2:5: error: spec/pr: pr must name a pull request as owner/name#N, e.g. acme/shop#12, got "acme/shop#0"`}},
		{name: "leading zero", front: "pr: a/b#012\n",
			diags: []string{`f.md:2:5: error: spec/pr: pr must name a pull request as owner/name#N, e.g. acme/shop#12, got "a/b#012"`}},
		{name: "url", front: "pr: https://github.com/a/b/pull/3\n",
			diags: []string{`f.md:2:5: error: spec/pr: pr must name a pull request as owner/name#N, e.g. acme/shop#12, got "https://github.com/a/b/pull/3"`}},
		{name: "a number", front: "pr: 12\n",
			diags: []string{`f.md:2:5: error: spec/pr: pr must name a pull request as owner/name#N, e.g. acme/shop#12, got "12"`}},
		{name: "a list", front: "pr: [a/b#1]\n",
			diags: []string{`f.md:2:5: error: spec/frontmatter: pr must be a pull request as owner/name#N, got a list`}},
		{name: "another repository", front: "repo: acme/shop\npr: acme/web#4\n", want: PRRef{Repo: "acme/web", Number: 4, Pos: parse.Pos{Line: 3, Col: 5}},
			diags: []string{`f.md:3:5: error: spec/pr: pr names acme/web#4, a pull request of acme/web, but the spec delivers into acme/shop; name a pull request into the spec's repository, e.g. acme/shop#4`}},
		{name: "coordinated", front: "repo: acme/api\npr: acme/api#4\n", legs: true, want: PRRef{Repo: "acme/api", Number: 4, Pos: parse.Pos{Line: 3, Col: 5}},
			diags: []string{`f.md:3:5: error: spec/pr: pr names acme/api#4, but a coordinated spec delivers one pull request per leg and cannot adopt one; remove pr: or the legs`}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := "---\n" + tt.front + "---\n" + adoptBody
			if tt.legs {
				src += adoptLegs
			}
			s, ds := ParseSpec(parse.Parse("f.md", []byte(src)), Defaults{Repo: "a/b", Base: "main"})
			var got []string
			for _, d := range ds {
				got = append(got, d.String())
			}
			if diff := cmp.Diff(tt.diags, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tt.want, s.PR); diff != "" {
				t.Errorf("PR (-want +got):\n%s", diff)
			}
		})
	}
}

// FuzzParsePRRef: the reference parser never panics, and what it accepts
// renders back to the same text.
func FuzzParsePRRef(f *testing.F) {
	for _, s := range []string{"acme/shop#12", "a/b#0", "a/b#", "#1", "a/b#1#2", "a/b#999999999"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		r, err := ParsePRRef(s)
		if err == nil && r.String() != s {
			t.Errorf("ParsePRRef(%q) = %v, which renders as %q", s, r, r.String())
		}
	})
}
