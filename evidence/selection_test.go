package evidence

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/rogpeppe/go-internal/txtar"
)

// parseWant reads a testdata `want:` line: `assertion`, or `<runner> <n>`
// with a trailing + for a lower bound.
func parseWant(t *testing.T, w string) Selection {
	t.Helper()
	if w == "assertion" {
		return Selection{}
	}
	name, n, ok := strings.Cut(w, " ")
	if !ok {
		t.Fatalf("want %q is not `<runner> <n>`", w)
	}
	runners := map[string]Runner{"go": GoTest, "pytest": Pytest, "jest": Jest, "vitest": Vitest, "cargo": CargoTest}
	r, ok := runners[name]
	if !ok {
		t.Fatalf("want %q names no runner", w)
	}
	s := Selection{Runner: r, AtLeast: strings.HasSuffix(n, "+")}
	c, err := strconv.Atoi(strings.TrimSuffix(n, "+"))
	if err != nil {
		t.Fatalf("want %q: %v", w, err)
	}
	s.Tests = c
	return s
}

// Every runner's real or documented output under testdata/runs: the
// runner, the count of selected tests, and whether it selected nothing
// (docs/delivery.md "Evidence replay"; L-67).
func TestReadRunnerOutputs(t *testing.T) {
	t.Parallel()
	files, err := filepath.Glob(filepath.Join("testdata", "runs", "*.txtar"))
	if err != nil {
		t.Fatal(err)
	}
	if len(files) < 20 {
		t.Fatalf("found %d runner outputs, want the whole set", len(files))
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			t.Parallel()
			a, err := txtar.ParseFile(f)
			if err != nil {
				t.Fatal(err)
			}
			fields := map[string]string{}
			for _, line := range strings.Split(string(a.Comment), "\n") {
				if k, v, ok := strings.Cut(line, ": "); ok {
					fields[k] = v
				}
			}
			if len(a.Files) != 1 || a.Files[0].Name != "output" {
				t.Fatalf("%s holds no output section", f)
			}
			want := parseWant(t, fields["want"])
			got := Read(fields["command"], string(a.Files[0].Data))
			if diff := cmp.Diff(want, got); diff != "" {
				t.Errorf("Read(%q) mismatch (-want +got):\n%s", fields["command"], diff)
			}
			if got.Nothing() != (want.Runner != Assertion && want.Tests == 0) {
				t.Errorf("Nothing() = %v for %s", got.Nothing(), got)
			}
			if got.Nothing() && !strings.Contains(got.Why(), "for example") {
				t.Errorf("Why() = %q, want a selective example", got.Why())
			}
		})
	}
}

func TestSelectionString(t *testing.T) {
	t.Parallel()
	tests := []struct {
		s    Selection
		want string
	}{
		{Selection{}, "assertion"},
		{Selection{Runner: GoTest, Tests: 1, AtLeast: true}, "1+ tests"},
		{Selection{Runner: Pytest, Tests: 1}, "1 test"},
		{Selection{Runner: CargoTest, Tests: 0}, "0 tests"},
		{Selection{Runner: Jest, Tests: 12}, "12 tests"},
	}
	for _, tt := range tests {
		if got := tt.s.String(); got != tt.want {
			t.Errorf("%#v.String() = %q, want %q", tt.s, got, tt.want)
		}
	}
}

// A command's own runner decides; a script runner (make, npm) is read by
// the runner its output shows.
func TestReadRunnerOfCommand(t *testing.T) {
	t.Parallel()
	tests := []struct {
		cmd, out string
		want     Runner
	}{
		{"python -m pytest tests/test_tax.py", "2 passed in 0.01s", Pytest},
		{"npx vitest run a.test.ts", "", Vitest},
		{"CGO_ENABLED=0 go test ./calc -run TestAdd", "ok  \tx\t0.1s", GoTest},
		{"make test TEST=TestAdd", "ok  \texample.com/calc\t0.002s\n", GoTest},
		{"grep -q x README.md", "", Assertion},
	}
	for _, tt := range tests {
		if got := Read(tt.cmd, tt.out).Runner; got != tt.want {
			t.Errorf("Read(%q).Runner = %q, want %q", tt.cmd, got, tt.want)
		}
	}
}

func FuzzRead(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "runs", "*.txtar"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add("go test ./x -run TestY", string(b))
		}
	}
	f.Fuzz(func(t *testing.T, cmd, out string) {
		s := Read(cmd, out)
		if s.Tests < 0 {
			t.Fatalf("Read counted %d tests", s.Tests)
		}
		if s.Nothing() && s.Why() == "" {
			t.Fatalf("a selection of nothing has no reason: %#v", s)
		}
	})
}
