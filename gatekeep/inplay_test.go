package gatekeep

import (
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

func TestCommandFiles(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd  string
		want []string
	}{
		{"go test ./billing/... ./web", []string{"billing/", "web/"}},
		{"test -f rows/row-1.txt", []string{"rows/row-1.txt"}},
		{"go test ./...", []string{"./"}},
		{"make check", nil},
		{"", nil},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, CommandFiles(tt.cmd)); diff != "" {
			t.Errorf("CommandFiles(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestDescribeInPlay(t *testing.T) {
	t.Parallel()
	if got, want := DescribeInPlay("the spec's context", nil), "the spec's context: none, so only lessons without a scope apply"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := DescribeInPlay("x", []string{"a`b", "c\nd"}), "x: `a'b`, `c d`"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	many := strings.Split("a b c d e f g h i j", " ")
	if got := DescribeInPlay("x", many); !strings.HasSuffix(got, "`h` and 2 more") {
		t.Errorf("got %q, want 8 paths and the count of the rest", got)
	}
}

// The files in play of a row are the spec's context, the criterion's
// venue and the files its recorded evidence reads; of a seed, the context.
func TestRowInPlay(t *testing.T) {
	t.Parallel()
	const src = "# Ledger - loop engine\n**Spec:** `specs/checkout.md`\nbase: 677458c3efa4c21e48eb161ec4c5e98dea6dccfd\nverification: go test ./checkout/...\nchecks: commands\niterations: 2\nallowance: 2\n\n" +
		"| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | done | 1 | test -f rows/row-1.txt; ok |\n| 2 | open | 0 | go test ./billing/...; FAIL: rounding |\n\n" +
		"## Decisions\nrow 0 done | seeded 2 rows, closed 0 on baseline | row 1\nrow 1 done | wrote rows/row-1.txt on attempt 1 | next row\n\n## Delivery\nspec-commit: e882b34f446cf6cc40002192f38e734d9fa309db\ncontract: 9718e126d930\nbranch: gallivant/checkout\nphase: implement\n\n## Requests\n"
	sp, _, ds := specs.ParseSpecFile(specs.File{Path: "specs/checkout.md", Data: []byte("---\ncontext: [docs/api.md]\n---\n# Checkout\n\n## Acceptance criteria\n1. Rows exist.\n2. Totals round to cents.\n   - venue: billing/round.go\n")},
		specs.Defaults{Repo: "acme/api", Base: "main"})
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	for _, tt := range []struct {
		target   int
		inPlay   []string
		whatPart string
	}{
		{2, []string{"docs/api.md", "billing/round.go", "billing/"}, "row 2's context, venue and evidence"},
		{ledger.SeedTarget, []string{"docs/api.md"}, "the spec's context"},
	} {
		l, lds := ledger.Parse("plans/checkout-ledger.md", []byte(src))
		if ledger.Fatal(lds) {
			t.Fatal(lds)
		}
		l, _ = ledger.Dispatch(l, ledger.Action{Target: tt.target, Member: "home"}, "677458c3efa4c21e48eb161ec4c5e98dea6dccfd", time.Date(2026, 12, 1, 10, 0, 0, 0, time.UTC))
		repo, inPlay, what := RowInPlay(sp, l)
		if repo != "acme/api" || what != tt.whatPart {
			t.Errorf("target %d: repo %q, what %q", tt.target, repo, what)
		}
		if diff := cmp.Diff(tt.inPlay, inPlay); diff != "" {
			t.Errorf("target %d: in play (-want +got):\n%s", tt.target, diff)
		}
	}
}
