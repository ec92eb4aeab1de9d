package specs

import (
	"fmt"
	"io/fs"
	"os"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
)

func planFixture(t testing.TB) (spec, plan string) {
	t.Helper()
	s, err := os.ReadFile("testdata/plan/webhooks.md")
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.ReadFile("testdata/plan/webhooks-plan.md")
	if err != nil {
		t.Fatal(err)
	}
	return string(s), string(p)
}

// target is the target repository tree the fixture plan's paths exist in.
var target = fstest.MapFS{
	"internal/webhooks/deliver.go":      {Data: []byte("package webhooks\n")},
	"internal/webhooks/deliver_test.go": {Data: []byte("package webhooks\n")},
	"internal/store/migrations/001.sql": {Data: []byte("-- init\n")},
	"docs/webhooks.md":                  {Data: []byte("# Webhooks\n")},
}

// checkPlan loads a control snapshot with the spec and the plan and returns
// every plan diagnostic as "line:col rule" (errors only unless all).
func checkPlan(t testing.TB, spec, plan string, tree fs.FS, all bool) []string {
	t.Helper()
	files := []File{{Path: "specs/webhooks.md", Data: []byte(spec)}, {Path: "plans/webhooks-plan.md", Data: []byte(plan)}}
	set, ds := Load(DefaultConfig(), files)
	ds = append(ds, set.CheckPlans(tree)...)
	ds.Sort()
	var out []string
	for _, d := range ds {
		if d.File != "plans/webhooks-plan.md" || (!all && d.Severity != parse.SeverityError) {
			continue
		}
		out = append(out, d.Pos().String()+" "+d.Rule)
	}
	return out
}

func TestPlanGoldenPasses(t *testing.T) {
	t.Parallel()
	spec, plan := planFixture(t)
	if got := checkPlan(t, spec, plan, target, true); len(got) != 0 {
		t.Errorf("the golden plan has diagnostics: %v", got)
	}
	// Without a target tree the paths rule is skipped, visibly.
	if diff := cmp.Diff([]string{"1:1 plan/paths-exist"}, checkPlan(t, spec, plan, nil, true)); diff != "" {
		t.Errorf("without --target (-want +got):\n%s", diff)
	}
	set, _ := Load(DefaultConfig(), []File{{Path: "specs/webhooks.md", Data: []byte(spec)}, {Path: "plans/webhooks-plan.md", Data: []byte(plan)}})
	p := set.PlanFor("specs/webhooks.md")
	if p == nil || len(p.Waves) != 2 || len(p.Tasks()) != 4 || len(p.Coverage) != 4 || p.Waves[1].Tasks[0].N != 3 {
		t.Fatalf("plan model: %+v", p)
	}
	if diff := cmp.Diff([]string{"go test ./internal/webhooks/..."}, p.VerificationSegments); diff != "" {
		t.Errorf("verification segments (-want +got):\n%s", diff)
	}
	if a := p.Tasks()[2].Anchors; len(a) != 2 || a[1].String() != `§ "Acceptance criteria" L14` {
		t.Errorf("task 3 anchors %v, want two, the second %s", a, `§ "Acceptance criteria" L14`)
	}
	// A CRLF copy reads the same.
	crlf := strings.ReplaceAll(plan, "\n", "\r\n")
	if got := checkPlan(t, spec, crlf, target, true); len(got) != 0 {
		t.Errorf("the CRLF plan has diagnostics: %v", got)
	}
}

// Each failing fixture is the golden plan with one edit; the test pins the
// rule id, line and column of every error it causes.
func TestPlanRules(t *testing.T) {
	t.Parallel()
	spec, golden := planFixture(t)
	tests := []struct {
		name string
		old  string
		new  string
		want []string
	}{
		// structure
		{"no spec line", "**Spec:** `specs/webhooks.md`\n", "", []string{"1:1 plan/structure"}},
		{"no verification line", "**Verification:** `go test ./internal/webhooks/...`\n", "", []string{"1:1 plan/structure"}},
		{"spec is not a spec", "`specs/webhooks.md`", "`specs/gone.md`", []string{"3:11 plan/structure"}},
		{"waves out of order", "## Wave 2 — Delivery", "## Wave 3 — Delivery", []string{"44:4 plan/structure"}},
		{"task number reused", "### Task 4: Document", "### Task 2: Document", []string{"60:5 plan/structure", "60:5 plan/table-closure", "78:44 plan/table-closure"}},
		{"task outside a wave", "## Wave 1 — Signer and secret store", "## Signer and secret store", []string{"15:5 plan/structure", "29:5 plan/structure", "44:4 plan/structure", "75:82 plan/table-closure", "76:68 plan/table-closure"}},
		{"heading between waves", "## Wave 2 — Delivery", "## Delivery", []string{"44:4 plan/structure", "48:5 plan/structure", "60:5 plan/structure", "75:82 plan/table-closure", "76:68 plan/table-closure", "78:44 plan/table-closure"}},
		{"a wave without tasks", "## Spec coverage", "## Wave 3 — Cleanup\n\nSolo: lone remaining task\n\n## Spec coverage", []string{"71:4 plan/structure"}},
		{"task without files", "**Files:**\n- Modify: `docs/webhooks.md`\n\n**Tests:**\n- none: docs-only\n", "**Tests:**\n- none: docs-only\n", []string{"60:5 plan/structure", "62:1 plan/tests-block"}},
		{"bad files entry", "- Modify: `docs/webhooks.md`", "- Edit: `docs/webhooks.md`", []string{"63:3 plan/structure"}},
		// wave-file-disjointness
		{"writer against writer", "- Create: `internal/webhooks/secrets.go`", "- Create: `internal/webhooks/sign.go`", []string{"34:11 plan/wave-file-disjointness"}},
		{"glob writer overlaps", "- Modify: `internal/store/migrations/*.sql`", "- Modify: `internal/webhooks/*.go`", []string{"35:11 plan/wave-file-disjointness"}},
		{"test against writer", "- Test: `internal/webhooks`\n\n**Tests:**\n- `go test ./internal/webhooks -run TestRotation`", "- Test: `internal/webhooks/sign.go`\n\n**Tests:**\n- `go test ./internal/webhooks/sign.go -run TestRotation`", []string{"36:9 plan/wave-file-disjointness"}},
		{"glob create", "- Create: `internal/webhooks/secrets.go`", "- Create: `internal/webhooks/secret*.go`", []string{"34:11 plan/wave-file-disjointness"}},
		// paths-exist
		{"modify a missing file", "- Modify: `docs/webhooks.md`", "- Modify: `docs/hooks.md`", []string{"63:11 plan/paths-exist"}},
		{"glob matching nothing", "`internal/store/migrations/*.sql`", "`internal/store/migrations/*.yaml`", []string{"35:11 plan/paths-exist"}},
		// tests-block
		{"no tests block", "**Tests:**\n- `go test ./internal/webhooks -run TestSign`\n", "", []string{"15:5 plan/tests-block"}},
		{"tests block not after files", "- Test: `internal/webhooks`\n\n**Tests:**\n- `go test ./internal/webhooks -run TestSign`\n\nSign", "- Test: `internal/webhooks`\n\nSome words.\n\n**Tests:**\n- `go test ./internal/webhooks -run TestSign`\n\nSign", []string{"25:1 plan/tests-block"}},
		{"unanchored segment", "`go test ./internal/webhooks -run TestSign`", "`go test ./internal/webhooks -run TestSign && go vet ./internal/other`", []string{"24:3 plan/tests-block"}},
		{"broadening selector", "`go test ./internal/webhooks -run TestSign`", "`go test ./internal/webhooks ./internal/store/ -run TestSign`", []string{"24:3 plan/tests-block"}},
		{"full suite segment", "`go test ./internal/webhooks -run TestSign`", "`go test ./internal/webhooks -run TestSign && go test ./internal/webhooks/...`", []string{"24:3 plan/tests-block"}},
		{"unsupported shell", "`go test ./internal/webhooks -run TestSign`", "`sh -c 'go test ./internal/webhooks'`", []string{"24:3 plan/tests-block"}},
		{"bullet not a command", "- `go test ./internal/webhooks -run TestSign`", "- run the signer tests", []string{"24:3 plan/tests-block", "23:1 plan/tests-block"}},
		{"none with a test path", "- Modify: `docs/webhooks.md`\n", "- Modify: `docs/webhooks.md`\n- Test: `docs/webhooks.md`\n", []string{"66:1 plan/tests-block"}},
		{"none and a command", "- none: docs-only", "- none: docs-only\n- `go test ./docs`", []string{"65:1 plan/tests-block", "67:3 plan/tests-block"}},
		{"missing test path", "- Test: `internal/webhooks/deliver_test.go`", "- Test: `internal/webhooks/send_test.go`", []string{"54:9 plan/tests-block", "57:3 plan/tests-block"}},
		// solo-line
		{"one-task wave without solo", "### Task 4: Document verification for customers", "## Wave 3 — Docs\n\n### Task 4: Document verification for customers", []string{"44:4 plan/solo-line", "60:4 plan/solo-line"}},
		// header-entrypoint
		{"run step repeats the header", "Explain how", "Run: `go test ./internal/webhooks/...`\n\nExplain how", []string{"68:6 plan/header-entrypoint"}},
		{"tests bullet is the header", "- `go test ./internal/webhooks -run TestSign`", "- `go test ./internal/webhooks/...`", []string{"24:3 plan/header-entrypoint"}},
		{"prose restates the header", "verifier accepts either until then.", "verifier accepts either until then; go test ./internal/webhooks/... proves it.", []string{"42:37 plan/header-entrypoint"}},
		// anchor-resolution
		{"unknown section", `**Spec:** § "Acceptance criteria" L14`, `**Spec:** § "Criteria" L14`, []string{"31:11 plan/anchor-resolution"}},
		{"lines outside the section", `**Spec:** § "Acceptance criteria" L14`, `**Spec:** § "Acceptance criteria" L16`, []string{"31:11 plan/anchor-resolution"}},
		{"spec none", `**Spec:** § "Acceptance criteria" L14`, `**Spec:** none`, []string{"31:11 plan/anchor-resolution"}},
		{"malformed anchor", `**Spec:** § "Acceptance criteria" L14`, `**Spec:** AC 2`, []string{"31:11 plan/anchor-resolution"}},
		// table-closure
		{"no coverage table", "## Spec coverage", "## Spec coverage (later)", []string{"71:4 plan/structure", "78:51 plan/table-closure"}},
		{"a task owns no row", "| Task 2, Task 3 |", "| Task 3 |", []string{"29:5 plan/table-closure"}},
		{"an owner that does not exist", "| Task 1, Task 3 |", "| Task 1, Task 3, Task 9 |", []string{"75:82 plan/table-closure"}},
		{"anchor-less task without a mechanical row", "| - | mechanical: customer documentation | Task 4 |", "| § \"Problem\" L9 | customer documentation | Task 4 |", []string{"60:5 plan/table-closure"}},
		{"bad owner", "| Verification |", "| everyone |", []string{"77:63 plan/table-closure"}},
		// waiver-literal
		{"waived literal", "| `go test ./internal/webhooks/...` passes | Verification |", "| `go test ./internal/webhooks/...` passes | waived: CI runs it |", []string{"77:20 plan/waiver-literal"}},
		// placeholder-scan
		{"fill-in marker", "Python.", "Python, and [fill in] for Ruby.", []string{"69:13 plan/placeholder-scan"}},
		{"angle placeholder", "- Modify: `docs/webhooks.md`", "- Modify: `docs/<page>.md`", []string{"63:17 plan/placeholder-scan", "63:11 plan/paths-exist"}},
		{"xxx marker", "Python.", "Python and xxx.", []string{"69:12 plan/placeholder-scan"}},
		// quote-integrity
		{"inexact literal", "`X-Acme-Signature` header.", "`X-ACME-Signature` header.", []string{"27:1 plan/quote-integrity"}},
		{"unquoted literal", "`X-Acme-Signature` header.", "X-Acme-Signature header.", []string{"27:1 plan/quote-integrity"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if !strings.Contains(golden, tt.old) {
				t.Fatalf("the golden plan does not contain %q", tt.old)
			}
			plan := strings.Replace(golden, tt.old, tt.new, 1)
			got := checkPlan(t, spec, plan, target, false)
			want := append([]string(nil), tt.want...)
			sortPos(want)
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
				for _, d := range diagsOf(t, spec, plan) {
					t.Log(d)
				}
			}
		})
	}
}

func sortPos(l []string) {
	ds := make(parse.Diagnostics, len(l))
	for i, s := range l {
		pos, rule, _ := strings.Cut(s, " ")
		var line, col int
		if _, err := sscan(pos, &line, &col); err != nil {
			panic(err)
		}
		ds[i] = parse.Diagnostic{File: "x", Line: line, Col: col, Rule: rule, Severity: parse.SeverityError}
	}
	ds.Sort()
	for i, d := range ds {
		l[i] = d.Pos().String() + " " + d.Rule
	}
}

func diagsOf(t *testing.T, spec, plan string) []string {
	files := []File{{Path: "specs/webhooks.md", Data: []byte(spec)}, {Path: "plans/webhooks-plan.md", Data: []byte(plan)}}
	set, ds := Load(DefaultConfig(), files)
	ds = append(ds, set.CheckPlans(target)...)
	var out []string
	for _, d := range ds {
		out = append(out, d.String())
	}
	return out
}

func FuzzParsePlan(f *testing.F) {
	_, golden := planFixture(f)
	f.Add(golden)
	f.Add("## Wave 1 — x\n### Task 1\n**Files:**\n- Test: `a`\n**Tests:**\n- `a::b`\n## Spec coverage\n| anchor | requirement (short) | owner |\n|---|---|---|\n| - | mechanical: x | Task 1 |\n")
	f.Add("**Spec:** `specs/webhooks.md`\n## Wave 1 — x\n### Task 1\n**Files:**\n-\n**Tests:**\n-\n- via:\n")
	f.Fuzz(func(t *testing.T, src string) {
		set, _ := Load(DefaultConfig(), []File{{Path: "plans/p-plan.md", Data: []byte(src)}, {Path: "specs/webhooks.md", Data: []byte("# W\n\n## Acceptance criteria\n1. x\n")}})
		ds := set.CheckPlans(target)
		for _, d := range ds {
			if d.Line < 1 || d.Col < 1 || d.Rule == "" {
				t.Fatalf("diagnostic without a position or rule: %+v", d)
			}
		}
	})
}

func sscan(pos string, line, col *int) (int, error) { return fmt.Sscanf(pos, "%d:%d", line, col) }

// BenchmarkCheckPlan checks a plan of 40 waves of 5 tasks each against its
// spec.
func BenchmarkCheckPlan(b *testing.B) {
	spec, _ := planFixture(b)
	var p strings.Builder
	p.WriteString("# Plan\n\n**Spec:** `specs/webhooks.md`\n**Verification:** `go test ./...`\n\n")
	var rows strings.Builder
	n := 0
	for w := 1; w <= 40; w++ {
		fmt.Fprintf(&p, "## Wave %d — Part %d\n\n", w, w)
		for k := 0; k < 5; k++ {
			n++
			fmt.Fprintf(&p, "### Task %d: Piece %d\n\n**Spec:** § \"Acceptance criteria\" L12-L13\n\n**Files:**\n- Create: `pkg/p%d/x.go`\n- Test: `pkg/p%d/x_test.go`\n\n**Tests:**\n- `go test pkg/p%d/x_test.go pkg/p%d/x.go`\n\nWrite piece %d of the signer.\n\n", n, n, n, n, n, n, n)
			fmt.Fprintf(&rows, "| § \"Acceptance criteria\" L12-L13 | piece %d | Task %d |\n", n, n)
		}
	}
	p.WriteString("## Spec coverage\n\n| anchor | requirement (short) | owner |\n|---|---|---|\n" + rows.String())
	src := []byte(p.String())
	files := []File{{Path: "specs/webhooks.md", Data: []byte(spec)}, {Path: "plans/webhooks-plan.md", Data: src}}
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		set, ds := Load(DefaultConfig(), files)
		ds = append(ds, set.CheckPlans(nil)...)
		if ds.HasErrors() {
			b.Fatalf("the benchmark plan fails: %v", ds[:1])
		}
	}
}
