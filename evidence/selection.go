// Package evidence reads what a replayed evidence command proved: which test
// runner it ran, and how many tests that runner says it selected. It is pure:
// it reads a command line, its exit status and its output, never runs
// anything, and never panics on any input (docs/delivery.md "Evidence replay").
//
// Stability: gallivant is before 1.0. What is stable is the judgement a
// replay records in a ledger's `## Proof` line (Selection.String) and the
// rule that a command which selected no test proves nothing
// (Selection.Nothing). The set of runners Read recognises grows; a runner
// it does not know is read as an assertion (Assertion): its exit status is then
// failure. The Go API serves gallivant's own commands and may change in any
// minor release; each change is listed in CHANGELOG.md.
package evidence

import (
	"bufio"
	"encoding/json"
	"fmt"
	"regexp"
	"strconv"
	"strings"
)

// Runner names the test runner whose output a Selection was read from.
type Runner string

// The runners whose "selected nothing" gallivant recognises. Assertion is a
// command of no runner (`test -f docs/x.md`, `grep -q … file`): its exit
// status is the whole proof.
const (
	Assertion Runner = ""
	GoTest    Runner = "go test"
	Pytest    Runner = "pytest"
	Jest      Runner = "jest"
	Vitest    Runner = "vitest"
	CargoTest Runner = "cargo test"
)

// Selection is what a run's output says about the tests it selected.
type Selection struct {
	Runner Runner
	// Tests is how many tests the runner reports it ran. With AtLeast the
	// runner only said that some ran (`go test` without -v prints one ok
	// line a package), and Tests is a lower bound.
	Tests   int
	AtLeast bool
}

// Nothing reports that a runner ran and selected no test: the check proved
// nothing, whatever its exit status.
func (s Selection) Nothing() bool { return s.Runner != Assertion && s.Tests == 0 }

// String renders the count for a receipt or a ledger line: `3 tests`,
// `1+ tests`, `0 tests`, or `assertion` for a command of no runner.
func (s Selection) String() string {
	switch {
	case s.Runner == Assertion:
		return "assertion"
	case s.AtLeast:
		return fmt.Sprintf("%d+ tests", s.Tests)
	case s.Tests == 1:
		return "1 test"
	}
	return fmt.Sprintf("%d tests", s.Tests)
}

// Why says, for a selection that selected nothing, what the runner reported
// and what a selective check of that runner looks like; "" otherwise.
func (s Selection) Why() string {
	if !s.Nothing() {
		return ""
	}
	switch s.Runner {
	case GoTest:
		return "go test selected no test (`[no tests to run]` or `[no test files]`); name a package that holds the test and a -run pattern that matches it, for example go test ./calc -run 'TestAdd$'"
	case Pytest:
		return "pytest ran no test (exit 5, `no tests ran`, or every test deselected or skipped); name the test, for example pytest tests/test_tax.py::test_rounding"
	case Jest:
		return "jest found no test (`No tests found`, or every test skipped); name the test file, for example npx jest src/tax.test.js -t 'rounds half up'"
	case Vitest:
		return "vitest found no test (`No test files found`, or every test skipped); name the test file, for example npx vitest run src/tax.test.ts -t 'rounds half up'"
	case CargoTest:
		return "cargo test ran 0 tests in every test binary; name a filter that matches the test, for example cargo test tax::rounding"
	}
	return ""
}

// Read returns what the output of cmd says about the tests it selected. The
// runner is the command's own (`go test`, `pytest`, `python -m pytest`,
// `jest`, `vitest`, `cargo test`, through `npx`), or for a script runner
// (`npm test`, `yarn test`, `pnpm test`, `make …`) the one whose output it
// printed. A runner's command whose output names no test selected nothing.
func Read(cmd string, output string) Selection {
	r := runnerOf(cmd)
	if r == Assertion {
		r = runnerOfOutput(output)
	}
	if r == Assertion {
		return Selection{}
	}
	return count(r, output)
}

// runnerOf is the runner cmd invokes directly, or Assertion.
func runnerOf(cmd string) Runner {
	f := strings.Fields(cmd)
	for len(f) > 0 && (f[0] == "npx" || f[0] == "env" || strings.Contains(f[0], "=")) {
		f = f[1:]
	}
	if len(f) >= 2 && (f[0] == "python" || f[0] == "python3") && f[1] == "-m" {
		f = f[2:]
	}
	if len(f) == 0 {
		return Assertion
	}
	switch {
	case f[0] == "go" && len(f) > 1 && f[1] == "test":
		return GoTest
	case f[0] == "cargo" && len(f) > 1 && f[1] == "test":
		return CargoTest
	case f[0] == "pytest" || f[0] == "py.test":
		return Pytest
	case f[0] == "jest":
		return Jest
	case f[0] == "vitest":
		return Vitest
	}
	return Assertion
}

var (
	goPkgRE       = regexp.MustCompile(`(?m)^(ok|FAIL|\?) +\t?\S+\t`)
	goRunRE       = regexp.MustCompile(`(?m)^ *=== RUN +\S`)
	cargoRunRE    = regexp.MustCompile(`(?m)^running ([0-9]+) tests?$`)
	cargoResultRE = regexp.MustCompile(`(?m)^test result: \S+ ([0-9]+) passed; ([0-9]+) failed;`)
	pytestSumRE   = regexp.MustCompile(`(?m)^=*\s*(([0-9]+ [a-z]+(, )?)+) in [0-9.]+s\b.*$|^=+ no tests ran in [0-9.]+s =+$`)
	pytestWordRE  = regexp.MustCompile(`([0-9]+) ([a-z]+)`)
	jestSumRE     = regexp.MustCompile(`(?m)^Tests: +(.*[0-9]+ total)$`)
	vitestSumRE   = regexp.MustCompile(`(?m)^ +Tests +(.*\([0-9]+\))$`)
)

// runnerOfOutput recognises a runner from what a script printed.
func runnerOfOutput(out string) Runner {
	switch {
	case strings.Contains(out, `"Action":`) || goPkgRE.MatchString(out):
		return GoTest
	case cargoRunRE.MatchString(out):
		return CargoTest
	case strings.Contains(out, "No tests found, exiting with code") || jestSumRE.MatchString(out):
		return Jest
	case strings.Contains(out, "No test files found, exiting with code") || vitestSumRE.MatchString(out):
		return Vitest
	case pytestSumRE.MatchString(out) || strings.Contains(out, "collected 0 items"):
		return Pytest
	}
	return Assertion
}

func count(r Runner, out string) Selection {
	s := Selection{Runner: r}
	switch r {
	case GoTest:
		s.Tests, s.AtLeast = countGo(out)
	case CargoTest:
		for _, m := range cargoResultRE.FindAllStringSubmatch(out, -1) {
			s.Tests += atoi(m[1]) + atoi(m[2])
		}
		if s.Tests == 0 {
			for _, m := range cargoRunRE.FindAllStringSubmatch(out, -1) {
				s.Tests += atoi(m[1])
			}
		}
	case Pytest:
		if m := pytestSumRE.FindAllString(out, -1); len(m) > 0 {
			s.Tests = ran(m[len(m)-1], "passed", "failed", "error", "errors", "xfailed", "xpassed")
		}
	case Jest:
		if m := jestSumRE.FindAllStringSubmatch(out, -1); len(m) > 0 {
			s.Tests = ran(m[len(m)-1][1], "passed", "failed")
		}
	case Vitest:
		if m := vitestSumRE.FindAllStringSubmatch(out, -1); len(m) > 0 {
			s.Tests = ran(m[len(m)-1][1], "passed", "failed")
		}
	}
	return s
}

// ran sums the counts of line whose word is one of words.
func ran(line string, words ...string) int {
	n := 0
	for _, m := range pytestWordRE.FindAllStringSubmatch(line, -1) {
		for _, w := range words {
			if m[2] == w {
				n += atoi(m[1])
			}
		}
	}
	return n
}

// countGo counts go test's tests: exactly from -json run events or -v
// `=== RUN` lines, else one for each package line that ran tests.
func countGo(out string) (n int, atLeast bool) {
	if strings.Contains(out, `"Action":`) {
		sc := bufio.NewScanner(strings.NewReader(out))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			var ev struct{ Action, Test string }
			if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Action == "run" && ev.Test != "" {
				n++
			}
		}
		return n, false
	}
	if runs := goRunRE.FindAllString(out, -1); len(runs) > 0 {
		return len(runs), false
	}
	for _, line := range strings.Split(out, "\n") {
		switch {
		case strings.HasPrefix(line, "--- FAIL: "):
			n++
		case strings.HasPrefix(line, "ok ") && !strings.HasSuffix(line, "[no tests to run]"):
			n++
		}
	}
	return n, n > 0
}

func atoi(s string) int {
	n, err := strconv.Atoi(s)
	if err != nil || n < 0 {
		return 0
	}
	return n
}
