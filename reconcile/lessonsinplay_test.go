package reconcile

import (
	"strings"
	"testing"

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
		if diff := cmp.Diff(tt.want, commandFiles(tt.cmd)); diff != "" {
			t.Errorf("commandFiles(%q) (-want +got):\n%s", tt.cmd, diff)
		}
	}
}

func TestDescribeInPlay(t *testing.T) {
	t.Parallel()
	if got, want := describeInPlay("the spec's context", nil), "the spec's context: none, so only lessons without a scope apply"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got, want := describeInPlay("x", []string{"a`b", "c\nd"}), "x: `a'b`, `c d`"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	many := strings.Split("a b c d e f g h i j", " ")
	if got := describeInPlay("x", many); !strings.HasSuffix(got, "`h` and 2 more") {
		t.Errorf("got %q, want 8 paths and the count of the rest", got)
	}
}
