package ledger

import (
	"strings"
	"testing"
)

// L-67, G-76: evidence names one selective check; bare runner invocations
// and commands that assert nothing are refused with what a selective check
// looks like for that runner.
func TestSelectiveProblem(t *testing.T) {
	tests := []struct {
		cmd  string
		want string // substring of the problem; "" when selective
	}{
		{"go test ./checkout -run TestTax", ""},
		{"go test -run 'TestTax$' ./checkout", ""},
		{"go test ./checkout", ""},
		{"go test", "go test ./checkout -run"},
		{"go test ./...", "runs the whole suite"},
		{"go test -v ./...", "runs the whole suite"},
		{"go test .", "runs the whole suite"},
		{"npm test", "npm test -- checkout.test.js"},
		{"npm test -- checkout.test.js", ""},
		{"npm run test", "npm run test --"},
		{"yarn test", "yarn test checkout.test.js"},
		{"pytest", "pytest tests/test_tax.py"},
		{"pytest -q", "whole suite"},
		{"pytest tests/test_tax.py::test_rounding", ""},
		{"pytest -k rounding", ""},
		{"python -m pytest", "whole suite"},
		{"cargo test", "cargo test tax::rounding"},
		{"cargo test tax::rounding", ""},
		{"make test", "make test TEST="},
		{"make check", "whole suite"},
		{"make test TEST=TestTax", ""},
		{"echo ok", "asserts nothing"},
		{"true", "asserts nothing"},
		{":", "asserts nothing"},
		{"grep -q 'Retry-After' internal/http/client.go", ""},
		{"ls", "selects nothing"},
		// Issue 28: each of these was admitted and passed the gate.
		{"go test -run . ./...", "runs the whole suite"},
		{"go test -run=.* ./...", "runs the whole suite"},
		{"go test -run '' ./...", "runs the whole suite"},
		{"go test -run . ./calc", ""},
		{"go test -count 1 ./calc", ""},
		{"go test -count 1 ./...", "runs the whole suite"},
		{"bash -c true", "asserts nothing"},
		{"sh -c 'echo ok'", "asserts nothing"},
		{"bash -c 'go test ./...'", "runs the whole suite"},
		{"sh -c 'go test ./calc -run TestAdd'", ""},
		{"cat README.md", "asserts nothing"},
		{"go vet ./...", "checks the code's form"},
		{"go build ./...", "checks the code's form"},
		{"test -f docs/x.md", ""},
	}
	for _, tt := range tests {
		t.Run(tt.cmd, func(t *testing.T) {
			got := SelectiveProblem(tt.cmd)
			switch {
			case tt.want == "" && got != "":
				t.Errorf("SelectiveProblem(%q) = %q, want selective", tt.cmd, got)
			case tt.want != "" && !strings.Contains(got, tt.want):
				t.Errorf("SelectiveProblem(%q) = %q, want it to mention %q", tt.cmd, got, tt.want)
			}
		})
	}
}

// A done row's evidence must not report a failure; counts of zero are not
// failures.
func TestEvidenceFailure(t *testing.T) {
	tests := []struct {
		evidence string
		want     string
	}{
		{"go test ./checkout -run TestTax; ok", ""},
		{"go test ./checkout -run TestTax; FAIL", "FAIL"},
		{"go test ./checkout -run TestTax; --- FAIL: TestTax (0.00s)", "--- FAIL: TestTax (0.00s)"},
		{"pytest tests/t.py; 3 passed, 0 failed", ""},
		{"pytest tests/t.py; 1 passed, 2 failed", "1 passed, 2 failed"},
		{"cargo test tax; test result: FAILED. 0 passed; 1 failed", "test result: FAILED. 0 passed"},
		{"npm test -- a.js; exit status 1", "exit status 1"},
		{"go test ./x -run T; panic: nil map", "panic: nil map"},
		{"go test ./x -run T; tests failed", "tests failed"},
		{"go test ./x -run T; no errors", ""},
		{"go test ./x -run TestFailedLogin; ok", ""},
	}
	for _, tt := range tests {
		t.Run(tt.evidence, func(t *testing.T) {
			if got := EvidenceFailure(tt.evidence); got != tt.want {
				t.Errorf("EvidenceFailure(%q) = %q, want %q", tt.evidence, got, tt.want)
			}
		})
	}
}
