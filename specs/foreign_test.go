package specs

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/parse"
	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

// loadForeign loads testdata/foreign, a control repository holding a
// spec-kit feature folder and a Kiro spec, with edits applied on top
// (path → contents; "" removes the file).
func loadForeign(t testing.TB, edits map[string]string) (*Set, parse.Diagnostics) {
	t.Helper()
	files := map[string]string{}
	root := "testdata/foreign"
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		b, err := os.ReadFile(p)
		rel, _ := filepath.Rel(root, p)
		files[filepath.ToSlash(rel)] = string(b)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	for p, s := range edits {
		if s == "" {
			delete(files, p)
			continue
		}
		files[p] = s
	}
	cfg, ds := ParseConfig(ConfigFile, []byte(files[ConfigFile]))
	if ds.HasErrors() {
		t.Fatalf("config: %v", ds)
	}
	var fl []File
	for p, s := range files {
		fl = append(fl, File{Path: p, Data: []byte(s)})
	}
	set, lds := Load(cfg, fl)
	lds = append(lds, set.CheckPlans(nil)...)
	lds.Sort()
	return set, lds
}

const (
	skSpec   = "specs/001-rate-limit/spec.md"
	skTasks  = "specs/001-rate-limit/tasks.md"
	kiroSpec = ".kiro/specs/csv-export/requirements.md"
	kiroTask = ".kiro/specs/csv-export/tasks.md"
)

// errorsOf renders the error and warning diagnostics as "path:line:col rule".
func errorsOf(ds parse.Diagnostics) []string {
	var out []string
	for _, d := range ds {
		if d.Severity == parse.SeverityInfo {
			continue
		}
		out = append(out, d.File+":"+itoa(d.Line)+":"+itoa(d.Col)+" "+d.Rule)
	}
	sort.Strings(out)
	return out
}

func itoa(n int) string { return strconv.Itoa(n) }

type acView struct{ N, ID, Text string }

func acsOf(s *Spec) []acView {
	var out []acView
	for _, ac := range s.ACs {
		out = append(out, acView{itoa(ac.N), ac.ID, ac.Text})
	}
	return out
}

func TestForeignSpecsLoad(t *testing.T) {
	t.Parallel()
	set, ds := loadForeign(t, nil)
	if got := errorsOf(ds); len(got) != 0 {
		t.Fatalf("fixture diagnostics: %v", got)
	}
	// plan.md and design.md are feature material: no spec, no plan, and
	// not reported as unclassified.
	if diff := cmp.Diff([]string{kiroSpec, skSpec}, set.SpecPaths()); diff != "" {
		t.Errorf("specs (-want +got):\n%s", diff)
	}
	if len(set.Others) != 0 {
		t.Errorf("Others = %v, want none", set.Others)
	}
	tests := []struct {
		path                string
		title, stem, branch string
		format              Format
		verify              []string
		acs                 []acView
	}{
		{skSpec, "Per-token rate limiting", "001-rate-limit", "gallivant/001-rate-limit", FormatSpecKit, []string{"go test ./ratelimit/..."}, []acView{
			{"1", "US1.1", "**Given** a token that sent 100 requests this minute, **When** it sends another, **Then** the response is 429"},
			{"2", "US1.2", "**Given** a 429 response, **When** the client reads its headers, **Then** Retry-After names the seconds until the window resets"},
			{"3", "US2.1", `**Given** the plan "pro" has a limit of 500, **When** a pro token sends its 400th request, **Then** the request succeeds`},
		}},
		{kiroSpec, "csv-export", "csv-export", "gallivant/csv-export", FormatKiro, []string{"go test ./export/..."}, []acView{
			{"1", "1.1", "WHEN the owner requests an export THEN the system SHALL return a CSV file with one row per invoice"},
			{"2", "1.2", "WHEN an invoice has no line items THEN the system SHALL still write its row with a zero total"},
			{"3", "2.1", "IF the export holds more than 10000 invoices THEN the system SHALL stream the file instead of building it in memory"},
		}},
	}
	for _, tt := range tests {
		s := set.Specs[tt.path]
		if s == nil {
			t.Fatalf("%s not loaded", tt.path)
		}
		got := []any{s.Title, s.Stem(), Branch(s.Path), s.Format, s.Verify, s.Repo, s.Base, set.Config.LedgerPath(s.Path)}
		want := []any{tt.title, tt.stem, tt.branch, tt.format, tt.verify, "acme/api", "main", "plans/" + tt.stem + "-ledger.md"}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("%s (-want +got):\n%s", tt.path, diff)
		}
		if diff := cmp.Diff(tt.acs, acsOf(s)); diff != "" {
			t.Errorf("%s criteria (-want +got):\n%s", tt.path, diff)
		}
	}
	if c := set.Specs[skSpec].Contract().Text(); !strings.Contains(c, "ac 2 US1.2: **Given** a 429") {
		t.Errorf("contract text does not carry the criterion id:\n%s", c)
	}
}

func TestSpecKitSuccessCriteriaAndConfigVerify(t *testing.T) {
	t.Parallel()
	spec := strings.Replace(readFixture(t, skSpec), "## Verify\n\n- `go test ./ratelimit/...`\n", "", 1)
	set, ds := loadForeign(t, map[string]string{
		ConfigFile: "defaults: {repo: acme/api}\nformats:\n  spec_kit: [specs]\n  kiro: [.kiro/specs]\n  success_criteria: true\n  verify: [make test]\n",
		skSpec:     spec,
	})
	if got := errorsOf(ds); len(got) != 0 {
		t.Fatalf("diagnostics: %v", got)
	}
	s := set.Specs[skSpec]
	if diff := cmp.Diff([]string{"make test"}, s.Verify); diff != "" {
		t.Errorf("verify (-want +got):\n%s", diff)
	}
	last := acsOf(s)[len(s.ACs)-1]
	if diff := cmp.Diff(acView{"4", "SC-001", "The limiter adds under 1 ms at p99"}, last); diff != "" {
		t.Errorf("success criterion (-want +got):\n%s", diff)
	}
	// The Kiro spec keeps its own ## Verify.
	if diff := cmp.Diff([]string{"go test ./export/..."}, set.Specs[kiroSpec].Verify); diff != "" {
		t.Errorf("kiro verify (-want +got):\n%s", diff)
	}
}

func readFixture(t testing.TB, p string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata/foreign", p))
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// TestForeignDiagnostics: check reports problems of spec-kit and Kiro
// specs at their place in the original file, and a spec with errors is
// not valid (so it is not dispatched).
func TestForeignDiagnostics(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, old, new string
		want                 []string
	}{
		{"scenario without Then", skSpec,
			"**When** it sends another, **Then** the response is 429", "**When** it sends another, the response is 429",
			[]string{skSpec + ":24:4 spec-kit/scenario"}},
		{"needs clarification", skSpec,
			"- **FR-002**: System MUST read limits from `config/limits.yaml`", "- **FR-002**: System MUST read limits from [NEEDS CLARIFICATION: file or database?]",
			[]string{skSpec + ":52:44 spec-kit/needs-clarification"}},
		{"duplicate requirement id", skSpec,
			"- **FR-002**:", "- **FR-001**:",
			[]string{skSpec + ":52:3 spec-kit/duplicate-id"}},
		{"duplicate story", skSpec,
			"### User Story 2 - Operators", "### User Story 1 - Operators",
			[]string{skSpec + ":29:5 spec-kit/duplicate-id", skTasks + ":29:17 plan/anchor-resolution", skTasks + ":30:17 plan/anchor-resolution"}},
		{"story without scenarios", skSpec,
			"**Acceptance Scenarios**:\n\n1. **Given** the plan", "Scenarios follow.\n\n1. **Given** the plan",
			[]string{skSpec + ":29:5 spec-kit/scenario", skTasks + ":29:17 plan/anchor-resolution", skTasks + ":30:17 plan/anchor-resolution"}},
		{"malformed story heading", skSpec,
			"### User Story 2 - Operators", "### User story two - Operators",
			[]string{skSpec + ":29:5 spec-kit/story", skTasks + ":29:17 plan/anchor-resolution", skTasks + ":30:17 plan/anchor-resolution"}},
		{"criterion without SHALL", kiroSpec,
			"THEN the system SHALL still write", "THEN the system writes",
			[]string{kiroSpec + ":16:4 kiro/criterion"}},
		{"duplicate requirement", kiroSpec,
			"### Requirement 2", "### Requirement 1",
			[]string{kiroSpec + ":18:5 kiro/duplicate-id", kiroTask + ":10:20 plan/anchor-resolution"}},
		{"requirement without criteria", kiroSpec,
			"1. IF the export holds more than 10000 invoices THEN the system SHALL stream the file instead of building it in memory\n", "Later.\n",
			[]string{kiroSpec + ":18:5 kiro/criteria", kiroTask + ":10:20 plan/anchor-resolution"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := readFixture(t, tt.path)
			if !strings.Contains(src, tt.old) {
				t.Fatalf("fixture lacks %q", tt.old)
			}
			set, ds := loadForeign(t, map[string]string{tt.path: strings.Replace(src, tt.old, tt.new, 1)})
			if diff := cmp.Diff(tt.want, errorsOf(ds)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			if !set.Invalid[tt.path] {
				t.Errorf("%s is valid; a spec with errors is not dispatched", tt.path)
			}
		})
	}
}

// TestForeignFingerprint: the contract covers the criteria, not the prose
// around them; the fingerprint alone decides.
func TestForeignFingerprint(t *testing.T) {
	t.Parallel()
	fp := func(edits map[string]string, p string) string {
		set, ds := loadForeign(t, edits)
		if ds.HasErrors() {
			t.Fatalf("diagnostics: %v", errorsOf(ds))
		}
		return set.Specs[p].Contract().Fingerprint()
	}
	base := map[string]string{skSpec: fp(nil, skSpec), kiroSpec: fp(nil, kiroSpec)}
	tests := []struct {
		name, path, old, new string
		changed              bool
	}{
		{"story prose", skSpec, "learns that it must slow down", "is told to slow down", false},
		{"story title", skSpec, "Callers over the limit are told to wait", "Throttled callers wait", false},
		{"priority", skSpec, "(Priority: P2)", "(Priority: P3)", false},
		{"functional requirement", skSpec, "one-minute windows", "sliding windows", false},
		{"success criterion (not criteria by default)", skSpec, "under 1 ms", "under 2 ms", false},
		{"scenario wording", skSpec, "the response is 429", "the response is 503", true},
		{"scenario order", skSpec, "1. **Given** a token", "3. **Given** a token", false},
		{"verify", skSpec, "`go test ./ratelimit/...`", "`go test ./...`", true},
		{"kiro user story", kiroSpec, "so that my accountant can import them", "so that I can file taxes", false},
		{"kiro introduction", kiroSpec, "for their accountants", "for bookkeeping", false},
		{"kiro criterion", kiroSpec, "with a zero total", "with an empty total", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := readFixture(t, tt.path)
			if !strings.Contains(src, tt.old) {
				t.Fatalf("fixture lacks %q", tt.old)
			}
			got := fp(map[string]string{tt.path: strings.Replace(src, tt.old, tt.new, 1)}, tt.path)
			if changed := got != base[tt.path]; changed != tt.changed {
				t.Errorf("fingerprint changed = %v, want %v (%s -> %s)", changed, tt.changed, base[tt.path], got)
			}
		})
	}
}

type taskView struct {
	ID       string
	Parallel bool
	Files    []string
	Criteria []string
}

func wavesOf(p *Plan) [][]taskView {
	var out [][]taskView
	for _, w := range p.Waves {
		var ws []taskView
		for _, t := range w.Tasks {
			tv := taskView{ID: t.ID, Parallel: t.Parallel}
			for _, f := range t.Files {
				tv.Files = append(tv.Files, f.Path)
			}
			for _, c := range t.Criteria {
				tv.Criteria = append(tv.Criteria, c.Text)
			}
			ws = append(ws, tv)
		}
		out = append(out, ws)
	}
	return out
}

func TestForeignTasksAsPlans(t *testing.T) {
	t.Parallel()
	set, ds := loadForeign(t, nil)
	if got := errorsOf(ds); len(got) != 0 {
		t.Fatalf("fixture diagnostics: %v", got)
	}
	tests := []struct {
		spec string
		want [][]taskView
	}{
		{skSpec, [][]taskView{
			{{ID: "T001", Files: []string{"ratelimit/doc.go"}}},
			{{ID: "T002", Parallel: true, Files: []string{"ratelimit/window.go"}, Criteria: []string{"US1"}},
				{ID: "T003", Parallel: true, Files: []string{"ratelimit/respond.go"}, Criteria: []string{"US1"}}},
			{{ID: "T004", Files: []string{"ratelimit/middleware.go"}, Criteria: []string{"US1"}}},
			{{ID: "T005", Parallel: true, Files: []string{"config/limits.yaml", "ratelimit/config.go"}, Criteria: []string{"US2"}},
				{ID: "T006", Parallel: true, Files: []string{"docs/limits.md"}, Criteria: []string{"US2"}}},
		}},
		{kiroSpec, [][]taskView{
			{{ID: "1", Files: []string{"export/csv.go"}, Criteria: []string{"1.1", "1.2"}}},
			{{ID: "2.1", Files: []string{"export/stream.go"}, Criteria: []string{"2.1"}}},
		}},
	}
	for _, tt := range tests {
		p := set.PlanFor(tt.spec)
		if p == nil {
			t.Fatalf("no plan pairs with %s", tt.spec)
		}
		if diff := cmp.Diff(tt.want, wavesOf(p), cmpopts.EquateEmpty()); diff != "" {
			t.Errorf("%s waves (-want +got):\n%s", tt.spec, diff)
		}
	}
}

func TestForeignTasksLint(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, path, old, new string
		want                 []string
	}{
		{"parallel tasks share a file", skTasks,
			"Write the 429 response in ratelimit/respond.go", "Write the 429 response in ratelimit/window.go",
			[]string{skTasks + ":22:48 plan/wave-file-disjointness"}},
		{"a [P] task without files runs alone", skTasks,
			"Document the limits in docs/limits.md", "Document the limits",
			[]string{skTasks + ":30:1 plan/wave-file-disjointness"}},
		{"unknown story", skTasks,
			"- [ ] T006 [P] [US2]", "- [ ] T006 [P] [US7]",
			[]string{skTasks + ":30:17 plan/anchor-resolution"}},
		{"story no task is tagged with", skTasks,
			"[P] [US2] Read plan limits from config/limits.yaml in ratelimit/config.go\n- [ ] T006 [P] [US2]", "[P] Read plan limits from config/limits.yaml in ratelimit/config.go\n- [ ] T006 [P]",
			[]string{skTasks + ":1:1 plan/table-closure"}},
		{"duplicate task id", skTasks,
			"- [ ] T006", "- [ ] T005",
			[]string{skTasks + ":30:1 plan/structure"}},
		{"task outside a phase", skTasks,
			"## Phase 1: Setup", "## Setup",
			[]string{skTasks + ":13:1 plan/structure"}},
		{"placeholder left", skTasks,
			"in docs/limits.md", "in docs/limits.md (TODO)",
			[]string{skTasks + ":30:61 plan/placeholder-scan"}},
		{"kiro unknown criterion", kiroTask,
			"_Requirements: 2.1_", "_Requirements: 2.1, 3.4_",
			[]string{kiroTask + ":10:25 plan/anchor-resolution"}},
		{"kiro malformed citation", kiroTask,
			"_Requirements: 2.1_", "_Requirements: 2.1, two_",
			[]string{kiroTask + ":10:25 plan/anchor-resolution"}},
		{"kiro criterion cited by no task", kiroTask,
			"_Requirements: 1.1, 1.2_", "_Requirements: 1.1_",
			[]string{kiroTask + ":1:1 plan/table-closure"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			src := readFixture(t, tt.path)
			if !strings.Contains(src, tt.old) {
				t.Fatalf("fixture lacks %q", tt.old)
			}
			set, ds := loadForeign(t, map[string]string{tt.path: strings.Replace(src, tt.old, tt.new, 1)})
			if diff := cmp.Diff(tt.want, errorsOf(ds)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s", diff)
			}
			// Warnings leave the plan usable; errors keep the spec's
			// plan from being followed.
			spec := FeatureSpec(set.PlanFor(FeatureSpec(formatOfPath(tt.path), tt.path)).Format, tt.path)
			if want := ds.HasErrors(); set.PlanErrors[spec] != want {
				t.Errorf("PlanErrors[%s] = %v, want %v", spec, set.PlanErrors[spec], want)
			}
		})
	}
}

func formatOfPath(p string) Format {
	if strings.HasPrefix(p, ".kiro/") {
		return FormatKiro
	}
	return FormatSpecKit
}

func TestKiroNestedSubtasks(t *testing.T) {
	t.Parallel()
	src := "# Implementation Plan\n\n- [ ] 1. Models\n  - [ ] 1.1 Write a/b.go\n    - _Requirements: 1.1_\n  - [ ] 1.2 Write a/c.go\n    - _Requirements: 1.2_\n- [x] 2. Wire a/d.go\n  - _Requirements: 1.1, 1.2_\n"
	p, ds := ParseTasksFile(FormatKiro, File{Path: ".kiro/specs/f/tasks.md", Data: []byte(src)})
	if ds.HasErrors() {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := [][]taskView{
		{{ID: "1.1", Files: []string{"a/b.go"}, Criteria: []string{"1.1"}}},
		{{ID: "1.2", Files: []string{"a/c.go"}, Criteria: []string{"1.2"}}},
		{{ID: "2", Files: []string{"a/d.go"}, Criteria: []string{"1.1", "1.2"}}},
	}
	if diff := cmp.Diff(want, wavesOf(p), cmpopts.EquateEmpty()); diff != "" {
		t.Errorf("waves (-want +got):\n%s", diff)
	}
	if p.Spec != ".kiro/specs/f/requirements.md" {
		t.Errorf("plan pairs with %q", p.Spec)
	}
}

func TestFormatsClassify(t *testing.T) {
	t.Parallel()
	cfg, ds := ParseConfig(ConfigFile, []byte("formats:\n  spec_kit: [specs]\n  kiro: [.kiro/specs]\n"))
	if ds.HasErrors() {
		t.Fatal(ds)
	}
	tests := []struct {
		path string
		kind Kind
	}{
		{"specs/001-a/spec.md", KindSpec},
		{"specs/001-a/tasks.md", KindPlan},
		{"specs/001-a/plan.md", KindOther},
		{"specs/001-a/contracts/api.md", KindOther},
		{"specs/plain.md", KindSpec},     // gallivant's own spec beside the folders
		{"specs/team/spec.md", KindSpec}, // an unnumbered folder stays gallivant's
		{"specs/team/tasks.md", KindSpec},
		{"specs/001-/spec.md", KindSpec},
		{".kiro/specs/f/requirements.md", KindSpec},
		{".kiro/specs/f/design.md", KindOther},
		{".kiro/specs/f/tasks.md", KindPlan},
		{".kiro/steering/product.md", KindOther},
	}
	for _, tt := range tests {
		if got := cfg.Classify(tt.path, ""); got != tt.kind {
			t.Errorf("Classify(%s) = %s, want %s", tt.path, got, tt.kind)
		}
	}
	if diff := cmp.Diff([]string{".kiro/specs", "chains", "plans", "specs"}, cfg.ScanDirs()); diff != "" {
		t.Errorf("ScanDirs (-want +got):\n%s", diff)
	}
	// The grammar follows the path wherever a spec is read again (the
	// approved spec, verify's replay).
	cfg.Defaults.Repo = "acme/api"
	cfg.Formats.Verify = []string{"make test", "make lint"}
	for p, want := range map[string]Defaults{
		"specs/001-a/spec.md":           {Repo: "acme/api", Base: "main", Format: FormatSpecKit, Verify: "make test\nmake lint"},
		".kiro/specs/f/requirements.md": {Repo: "acme/api", Base: "main", Format: FormatKiro, Verify: "make test\nmake lint"},
		"specs/plain.md":                {Repo: "acme/api", Base: "main"},
	} {
		if diff := cmp.Diff(want, cfg.SpecDefaults(p)); diff != "" {
			t.Errorf("SpecDefaults(%s) (-want +got):\n%s", p, diff)
		}
	}
	for _, bad := range []string{"formats: {spec_kit: [../x]}", "formats: {kiro: []}", "formats: {succes_criteria: true}"} {
		if _, ds := ParseConfig(ConfigFile, []byte(bad)); !ds.HasErrors() {
			t.Errorf("ParseConfig(%q) accepted it", bad)
		}
	}
}

// seedSections seeds f with each heading's section of the files glob
// matches, under the file's title and the section's "## " heading (the
// title's own section, frontmatter included, on its own), rather
// than with whole files: the fuzzer minimizes every input that finds new
// coverage, executing none while it does, and a document of a few
// kilobytes, rich in new coverage, kept FuzzParseSpecKit to 16 executions
// in 10 s (issue 33). Sections of a few hundred bytes reach the same
// parser paths and minimize in a fraction of the time.
func seedSections(f *testing.F, glob string) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		src, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		var title, parent string
		var chunk strings.Builder
		flush := func() {
			if chunk.Len() > 0 {
				f.Add([]byte(title + parent + chunk.String()))
				chunk.Reset()
			}
		}
		for _, ln := range strings.SplitAfter(string(src), "\n") {
			switch {
			case strings.HasPrefix(ln, "# "):
				flush()
				title = ln
				continue
			case strings.HasPrefix(ln, "## "):
				flush()
				parent = ln
				continue
			case strings.HasPrefix(ln, "#"):
				flush()
			}
			chunk.WriteString(ln)
		}
		flush()
	}
}

func FuzzParseSpecKit(f *testing.F) {
	seedSections(f, "testdata/foreign/specs/*/spec.md")
	f.Add([]byte("# Feature Specification: x\n### User Story 1 - a\n**Acceptance Scenarios**:\n1. **Given** a\n- **SC-001**: [NEEDS CLARIFICATION: y]\n"))
	fuzzForeign(f, func(doc *parse.Document) (*Spec, parse.Diagnostics) {
		return ParseSpecKit(doc, Defaults{Repo: "a/b", Base: "main", Format: FormatSpecKit, SuccessCriteria: true, Verify: "make"})
	})
}

func FuzzParseKiro(f *testing.F) {
	seedCorpus(f, "testdata/foreign/.kiro/specs/*/requirements.md")
	f.Add([]byte("### Requirement 1\n#### Acceptance Criteria\n1. WHEN x\n### Requirement 1\n"))
	fuzzForeign(f, func(doc *parse.Document) (*Spec, parse.Diagnostics) {
		return ParseKiro(doc, Defaults{Repo: "a/b", Base: "main", Format: FormatKiro})
	})
}

func fuzzForeign(f *testing.F, parseFn func(*parse.Document) (*Spec, parse.Diagnostics)) {
	f.Fuzz(func(t *testing.T, src []byte) {
		s, ds := parseFn(parse.Parse("f/spec.md", src))
		checkInside(t, src, ds)
		s2, ds2 := parseFn(parse.Parse("f/spec.md", src))
		if diff := cmp.Diff(dumpSpec(s, ds), dumpSpec(s2, ds2)); diff != "" {
			t.Errorf("not deterministic (-first +second):\n%s", diff)
		}
		for i, ac := range s.ACs {
			if ac.N != i+1 || ac.ID == "" {
				t.Errorf("criterion %d is numbered %d with id %q", i+1, ac.N, ac.ID)
			}
		}
	})
}

func FuzzParseTasks(f *testing.F) {
	seedSections(f, "testdata/foreign/specs/*/tasks.md")
	seedSections(f, "testdata/foreign/.kiro/specs/*/tasks.md")
	f.Add([]byte("## Phase 1\n- [ ] T001 [P] [US1] a/b.go `c.d`\n- [ ] 1. x\n  - [ ] 1.1 y\n    - _Requirements: 1.1, ,x_\n"))
	f.Add([]byte("## Phase 1\n- [ ] T001 [US1] a/b.go\n  - Tests: `go test ./a; b` `` ``\n  - _Tests:_\n- [ ] 1. x\n  - **Tests:** `sh -c x`\n"))
	sp := &Spec{Path: "f/spec.md", ACs: []AC{{N: 1, ID: "US1.1"}, {N: 2, ID: "1.1"}}}
	f.Fuzz(func(t *testing.T, src []byte) {
		for _, format := range []Format{FormatSpecKit, FormatKiro} {
			p, ds := ParseTasksFile(format, File{Path: "f/tasks.md", Data: src})
			checkInside(t, src, ds)
			cds := CheckPlan(p, PlanContext{Spec: sp})
			checkInside(t, src, cds)
			for _, w := range p.Waves {
				if len(w.Tasks) == 0 {
					t.Errorf("wave %d has no task", w.N)
				}
			}
		}
	})
}
