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

// goSelective: a -run filter, or packages none of which is a wildcard.
func goSelective(rest []string) bool {
	if hasFlag(rest, "-run", "-bench", "-fuzz") {
		return true
	}
	pkgs := operands(rest)
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

// assertsNothing are commands whose success proves nothing about the code.
var assertsNothing = map[string]bool{"echo": true, "true": true, ":": true, "printf": true, "exit": true, "yes": true, "sleep": true}

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
	if assertsNothing[f[0]] {
		return fmt.Sprintf("%s asserts nothing; run a check that fails when the criterion does not hold, such as go test ./checkout -run 'TestTax$'", quote(cmd))
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
