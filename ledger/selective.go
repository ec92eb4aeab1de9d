package ledger

import (
	"fmt"
	"regexp"
	"strings"
)

// runner describes one test runner's selectors: how to tell a selective
// invocation from a bare whole-suite one, and what a selective check looks
// like, for the refusal message (L-67, G-76).
type runner struct {
	// match reports that the command is this runner's invocation; rest is
	// what follows the runner's words.
	match func(f []string) (rest []string, ok bool)
	// selective reports whether the arguments select something.
	selective func(rest []string) bool
	example   string
}

func prefix(words ...string) func([]string) ([]string, bool) {
	return func(f []string) ([]string, bool) {
		if len(f) < len(words) {
			return nil, false
		}
		for i, w := range words {
			if f[i] != w {
				return nil, false
			}
		}
		return f[len(words):], true
	}
}

// operands are the arguments that are not flags.
func operands(rest []string) []string {
	var out []string
	for _, a := range rest {
		if !strings.HasPrefix(a, "-") {
			out = append(out, a)
		}
	}
	return out
}

func hasFlag(rest []string, names ...string) bool {
	for _, a := range rest {
		for _, n := range names {
			if a == n || strings.HasPrefix(a, n+"=") {
				return true
			}
		}
	}
	return false
}

// goSelective: a -run filter that matches less than everything, or
// packages none of which is a wildcard.
func goSelective(rest []string) bool {
	if hasFlag(rest, "-run", "-bench", "-fuzz") && !matchesAll(rest) {
		return true
	}
	pkgs := goPackages(rest)
	if len(pkgs) == 0 {
		return false
	}
	for _, p := range pkgs {
		if p == "." || strings.HasSuffix(p, "...") {
			return false
		}
	}
	return true
}

// matchesAll reports a -run pattern that selects every test (`.`, `.*`,
// or an empty pattern): with a wildcard package it is the whole suite.
func matchesAll(rest []string) bool {
	for i, a := range rest {
		var v string
		switch {
		case a == "-run" && i+1 < len(rest):
			v = rest[i+1]
		case strings.HasPrefix(a, "-run="):
			v = strings.TrimPrefix(a, "-run=")
		default:
			continue
		}
		switch strings.Trim(v, `'"`) {
		case "", ".", ".*", "^", "^.*$", "Test", "^Test":
			return true
		}
		return false
	}
	return false
}

// goPackages are go test's operands, without the value of a flag that
// takes one (`-run TestX`, `-count 1`).
func goPackages(rest []string) []string {
	var out []string
	for i := 0; i < len(rest); i++ {
		a := rest[i]
		if strings.HasPrefix(a, "-") {
			if !strings.Contains(a, "=") && goValueFlags[strings.TrimLeft(a, "-")] {
				i++
			}
			continue
		}
		out = append(out, a)
	}
	return out
}

// goValueFlags are the go test flags whose value is the next word.
var goValueFlags = map[string]bool{"run": true, "skip": true, "bench": true, "fuzz": true, "count": true, "timeout": true, "tags": true, "p": true, "parallel": true, "cpu": true, "coverprofile": true, "covermode": true, "coverpkg": true, "o": true, "exec": true, "benchtime": true, "fuzztime": true, "shuffle": true, "vet": true}

// afterDashes: the script gets arguments of its own after `--`.
func afterDashes(rest []string) bool {
	for i, a := range rest {
		if a == "--" {
			return len(rest[i+1:]) > 0
		}
	}
	return false
}

var runners = []runner{
	{prefix("go", "test"), goSelective, "go test ./checkout -run 'TestTax$'"},
	{prefix("npm", "test"), afterDashes, "npm test -- checkout.test.js"},
	{prefix("npm", "run", "test"), afterDashes, "npm run test -- checkout.test.js"},
	{prefix("yarn", "test"), func(r []string) bool { return len(operands(r)) > 0 }, "yarn test checkout.test.js"},
	{prefix("pnpm", "test"), func(r []string) bool { return len(operands(r)) > 0 || afterDashes(r) }, "pnpm test checkout.test.js"},
	{prefix("pytest"), func(r []string) bool { return len(operands(r)) > 0 || hasFlag(r, "-k") }, "pytest tests/test_tax.py::test_rounding"},
	{prefix("python", "-m", "pytest"), func(r []string) bool { return len(operands(r)) > 0 || hasFlag(r, "-k") }, "python -m pytest tests/test_tax.py -k rounding"},
	{prefix("python3", "-m", "pytest"), func(r []string) bool { return len(operands(r)) > 0 || hasFlag(r, "-k") }, "python3 -m pytest tests/test_tax.py -k rounding"},
	{prefix("cargo", "test"), func(r []string) bool { return len(operands(r)) > 0 || hasFlag(r, "--test", "--lib", "--doc", "--bin") }, "cargo test tax::rounding"},
	{prefix("make"), func(r []string) bool {
		for _, a := range r {
			if strings.Contains(a, "=") {
				return true
			}
		}
		return false
	}, "make test TEST=TestTax"},
}

// assertsNothing are commands whose success proves nothing about the code:
// `cat FILE` succeeds whenever the file exists (`test -f FILE` says that
// plainly, `grep -q … FILE` checks what it holds).
var assertsNothing = map[string]bool{"echo": true, "true": true, ":": true, "printf": true, "exit": true, "yes": true, "sleep": true, "cat": true, "pwd": true, "date": true}

// shells are the interpreters whose `-c` script is judged as the command.
var shells = map[string]bool{"sh": true, "bash": true, "dash": true, "zsh": true}

// unwrapShell returns the script of `sh -c 'script'`, unquoted, or cmd.
func unwrapShell(f []string) []string {
	for len(f) >= 3 && shells[f[0]] && f[1] == "-c" {
		script := strings.Join(f[2:], " ")
		if len(script) >= 2 && (script[0] == '\'' || script[0] == '"') && script[len(script)-1] == script[0] {
			script = script[1 : len(script)-1]
		}
		f = strings.Fields(script)
	}
	return f
}

// staticOnly are checks that judge the code's form, never a criterion's
// behaviour: `go vet ./...` passes on code that does nothing at all.
var staticOnly = [][]string{{"go", "vet"}, {"go", "build"}, {"gofmt"}, {"go", "fmt"}, {"staticcheck"}, {"golangci-lint"}}

// SelectiveProblem says why an evidence command is not a selective check,
// or "" when it is: a bare runner invocation with no selector (`go test`,
// `go test ./...`, `npm test`, `pytest`, `cargo test`, `make test`), or a
// command that asserts nothing (`echo`, `true`, `:`). The message names
// what a selective check looks like for that runner (L-67, G-76).
func SelectiveProblem(cmd string) string {
	f := strings.Fields(cmd)
	if len(f) == 0 {
		return "is empty; name a test file, test id, filter or assertion"
	}
	f = unwrapShell(f)
	if len(f) == 0 || assertsNothing[f[0]] {
		return fmt.Sprintf("%s asserts nothing; run a check that fails when the criterion does not hold, such as go test ./checkout -run 'TestTax$', or test -f docs/x.md for a file that must exist", quote(cmd))
	}
	for _, s := range staticOnly {
		if _, ok := prefix(s...)(f); ok {
			return fmt.Sprintf("%s checks the code's form, not this row's criterion; run the test that fails when the criterion does not hold, for example go test ./checkout -run 'TestTax$'", quote(cmd))
		}
	}
	for _, r := range runners {
		if rest, ok := r.match(f); ok {
			if !r.selective(rest) {
				return fmt.Sprintf("%s runs the whole suite; select the check for this row, for example %s", quote(cmd), r.example)
			}
			return ""
		}
	}
	if len(f) < 2 {
		return fmt.Sprintf("%s selects nothing; name a test file, test id, filter or assertion", quote(cmd))
	}
	return ""
}

var failureRE = []*regexp.Regexp{
	regexp.MustCompile(`\bFAIL(ED|URE)?\b`),
	regexp.MustCompile(`(?i)\bpanic:`),
	regexp.MustCompile(`(?i)\bexit (status|code) [1-9][0-9]*\b`),
	regexp.MustCompile(`(?i)\b[1-9][0-9]* (failed|failures?|errors?|failing)\b`),
	regexp.MustCompile(`(?i)(^|[^0-9] )(failed|failing|error|errored)\b`),
}

// EvidenceFailure returns the result line of command-first evidence that
// reports a failure, or "" when none does. Counts of zero (`0 failed`) are
// not failures.
func EvidenceFailure(evidence string) string {
	parts := strings.Split(evidence, ";")
	for _, line := range parts[1:] {
		line = strings.TrimSpace(line)
		for _, re := range failureRE {
			if re.MatchString(line) {
				return line
			}
		}
	}
	return ""
}

// selectiveExample is a selective check of cmd's runner, for a refusal.
func selectiveExample(cmd string) string {
	f := strings.Fields(cmd)
	for _, r := range runners {
		if _, ok := r.match(f); ok {
			return r.example
		}
	}
	return runners[0].example
}
