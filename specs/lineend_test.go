package specs

import (
	"os"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
)

// eols are the line endings every document kind accepts: positions name the
// same line and column whichever a file uses (FuzzParseConfig once found
// `0: "0\r` reported on a line the file does not have, and YAML parser
// errors one line early).
var eols = []struct{ name, s string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}}

// diagAt is the part of a diagnostic that must not depend on line endings.
type diagAt struct {
	Rule      string
	Line, Col int
}

func diagsAt(ds parse.Diagnostics) []diagAt {
	var out []diagAt
	for _, d := range ds {
		out = append(out, diagAt{d.Rule, d.Line, d.Col})
	}
	return out
}

func TestPositionsByLineEnding(t *testing.T) {
	plan, err := os.ReadFile("testdata/plan/webhooks-plan.md")
	if err != nil {
		t.Fatal(err)
	}
	badPlan := strings.Replace(string(plan), `**Spec:** § "Acceptance criteria" L14`, `**Spec:** § "Acceptance criteria" Lx`, 1)
	spec := func(src string) parse.Diagnostics {
		_, ds := ParseSpec(parse.Parse("s.md", []byte(src)), Defaults{Repo: "a/b", Base: "main"})
		return ds
	}
	chain := func(src string) parse.Diagnostics {
		_, ds := ParseChain(parse.Parse("c.md", []byte(src)))
		return ds
	}
	tests := []struct {
		kind string
		src  string // written with \n; each line ending replaces it
		run  func(string) parse.Diagnostics
		want []diagAt
	}{
		{"config scanner error", "control:\n  branch: main\n bad: 1\n", func(s string) parse.Diagnostics {
			_, ds := ParseConfig(ConfigFile, []byte(s))
			return ds
		}, []diagAt{{"config/syntax", 3, 1}}},
		{"config parser error", "control:\n  specs: [a\nexecutor: {kind: none}\n", func(s string) parse.Diagnostics {
			_, ds := ParseConfig(ConfigFile, []byte(s))
			return ds
		}, []diagAt{{"config/syntax", 2, 1}}},
		{"config quote open at the end", "0: \"0\n", func(s string) parse.Diagnostics {
			_, ds := ParseConfig(ConfigFile, []byte(s))
			return ds
		}, []diagAt{{"config/syntax", 1, 1}}},
		{"config value", "control:\n  branch: main\nschedule: nope\n", func(s string) parse.Diagnostics {
			_, ds := ParseConfig(ConfigFile, []byte(s))
			return ds
		}, []diagAt{{"config/invalid", 3, 11}}},
		{"spec frontmatter parser error", "---\nrepo: a/b\ncontext: [x\nstatus: active\n---\n# T\n\n## Acceptance criteria\n1. It works.\n", spec,
			[]diagAt{{parse.RuleFrontmatterSyntax, 3, 1}}},
		{"spec frontmatter scanner error", "---\nrepo: a/b\nstatus: active\n x: 1\n---\n# T\n\n## Acceptance criteria\n1. It works.\n", spec,
			[]diagAt{{parse.RuleFrontmatterSyntax, 4, 1}}},
		{"chain frontmatter parser error", "---\nstatus: paused\nx: {a\n---\n# C\n\n## Milestones\n1. a.md\n2. b.md\n", chain,
			[]diagAt{{parse.RuleFrontmatterSyntax, 3, 1}}},
		{"plan anchor", badPlan, func(s string) parse.Diagnostics {
			_, ds := ParsePlan(parse.Parse("p.md", []byte(s)))
			return ds
		}, []diagAt{{"plan/anchor-resolution", 31, 11}}},
	}
	for _, tt := range tests {
		for _, eol := range eols {
			t.Run(tt.kind+"/"+eol.name, func(t *testing.T) {
				t.Parallel()
				src := strings.ReplaceAll(tt.src, "\n", eol.s)
				ds := tt.run(src)
				if diff := cmp.Diff(tt.want, diagsAt(ds)); diff != "" {
					t.Errorf("diagnostics (-want +got):\n%s\nall: %v", diff, ds)
				}
				checkInside(t, []byte(src), ds)
			})
		}
	}
}

// A NUL or invalid UTF-8 in gallivant.yaml is reported where it is, and the
// specs, which lose their defaults.repo with the file, are not blamed for it.
func TestConfigEncoding(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want diagAt
	}{
		{"NUL", "control:\n  branch: ma\x00in\n", diagAt{parse.RuleBinary, 2, 13}},
		{"invalid UTF-8", "defaults:\r\n  repo: a/b\r\n  base: \xffmain\r\n", diagAt{parse.RuleEncoding, 3, 9}},
		{"control character", "a: 1\rb: \x07\r", diagAt{parse.RuleEncoding, 2, 4}},
		{"after a multi-byte rune", "# é\nx: é\x01\n", diagAt{parse.RuleEncoding, 2, 5}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, ds := ParseConfig(ConfigFile, []byte(tt.src))
			if diff := cmp.Diff([]diagAt{tt.want}, diagsAt(ds)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nall: %v", diff, ds)
			}
			if !cfg.Unreadable {
				t.Errorf("Unreadable = false; want true")
			}
			set, sds := Load(cfg, []File{{Path: "specs/a.md", Data: []byte("# A\n\n## Acceptance criteria\n1. It works.\n")}})
			for _, d := range sds {
				if d.Rule == RuleSpecRepo {
					t.Errorf("follow-on diagnostic %v; the config's error is the one to fix", d)
				}
			}
			if set.Specs["specs/a.md"] == nil {
				t.Errorf("specs/a.md not loaded: %v", sds)
			}
		})
	}
	// A readable config without defaults.repo still gets the spec error.
	cfg, _ := ParseConfig(ConfigFile, []byte("control: {branch: main}\n"))
	_, sds := Load(cfg, []File{{Path: "specs/a.md", Data: []byte("# A\n\n## Acceptance criteria\n1. It works.\n")}})
	found := false
	for _, d := range sds {
		found = found || d.Rule == RuleSpecRepo
	}
	if !found {
		t.Errorf("no %s diagnostic for a spec without a repository: %v", RuleSpecRepo, sds)
	}
}
