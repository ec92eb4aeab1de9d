package reconcile

import (
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/specs"
)

// Issue 31: a repository GitHub does not have is reported with the line
// that sets it.
func TestRepoSource(t *testing.T) {
	t.Parallel()
	const cfg = "# config\ndefaults:\n  base: main\n  repo: me/calcc\n"
	const legs = "# Audit\n\n## Acceptance criteria\n1. A.\n2. B.\n\n## Legs\n### Leg: api\nrepo: acme/api\nscope: AC 1\n### Leg: web\nrepo: acme/wbe\nscope: AC 2\n"
	tests := []struct {
		name, spec, cfg, member, want string
	}{
		{"from the defaults", "# S\n\n## Acceptance criteria\n1. A.\n", cfg, specs.HomeMember, "gallivant.yaml:4:9"},
		{"from the defaults, CRLF", "# S\n\n## Acceptance criteria\n1. A.\n", "defaults:\r\n  repo: me/calcc\r\n", specs.HomeMember, "gallivant.yaml:2:9"},
		{"from the frontmatter", "---\nstatus: active\nrepo: me/calcc\n---\n# S\n\n## Acceptance criteria\n1. A.\n", cfg, specs.HomeMember, "specs/s.md:3:7"},
		{"from a leg", legs, cfg, "web", "specs/s.md:11:5"},
		{"unknown leg", legs, cfg, "db", ""},
		{"nowhere", "# S\n\n## Acceptance criteria\n1. A.\n", "executor:\n  kind: none\n", specs.HomeMember, ""},
		{"config not YAML", "# S\n\n## Acceptance criteria\n1. A.\n", "defaults: [\n", specs.HomeMember, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			sp, _ := specs.ParseSpec(parse.Parse("specs/s.md", []byte(tc.spec)), specs.Defaults{Repo: "me/calcc", Base: "main"})
			if got := repoSource(sp, tc.member, []byte(tc.spec), []byte(tc.cfg)); got != tc.want {
				t.Errorf("repoSource(%s, member %s) = %q; want %q", tc.name, tc.member, got, tc.want)
			}
		})
	}
}
