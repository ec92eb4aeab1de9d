package ghstandin

import (
	"strings"
	"testing"
)

// Only queries about immutable objects are memoized: a ref can move, an
// object cannot.
func TestMemoKey(t *testing.T) {
	t.Parallel()
	a, b := strings.Repeat("a", 40), strings.Repeat("b", 40)
	g := gitRepo{dir: "/repo.git"}
	tests := []struct {
		name  string
		stdin []byte
		args  []string
		memo  bool
	}{
		{"show of a commit", nil, []string{"show", "-s", "--format=%H", a}, true},
		{"rev-parse of a commit", nil, []string{"rev-parse", "--verify", "--quiet", a + "^{commit}"}, true},
		{"count of a range of objects", nil, []string{"rev-list", "--count", a + ".." + b}, true},
		{"diff of two commits", nil, []string{"diff", "--numstat", "-z", "--no-renames", a, b}, true},
		{"rev-parse of a branch", nil, []string{"rev-parse", "--verify", "--quiet", "main^{commit}"}, false},
		{"range ending at a branch", nil, []string{"rev-list", "--count", a + "..main"}, false},
		{"abbreviated id", nil, []string{"show", "-s", a[:12]}, false},
		{"branch listing", nil, []string{"for-each-ref", "--format=%(refname:short)", "refs/heads"}, false},
		{"ref update", nil, []string{"update-ref", "refs/heads/main", a}, false},
		{"no operand", nil, []string{"rev-parse", "--git-dir"}, false},
		{"input on stdin", []byte("x"), []string{"show", a}, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			if got := g.memoKey(tt.stdin, nil, tt.args) != ""; got != tt.memo {
				t.Errorf("memoKey(%q) memoizes = %v, want %v", tt.args, got, tt.memo)
			}
		})
	}
}
