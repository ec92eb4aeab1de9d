package agent

import (
	"testing"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/google/go-cmp/cmp"
)

func TestPorcelainPaths(t *testing.T) {
	t.Parallel()
	tests := []struct {
		status string
		max    int
		want   []string
	}{
		{"", 10, nil},
		// The first line lost its leading space to the output's trim.
		{"M calc.go\n?? notes.txt\nMM  a b.txt", 10, []string{"M calc.go", "?? notes.txt", "MM a b.txt"}},
		{"?? a\n?? b\n?? c\n?? d", 2, []string{"?? a", "?? b", "and 2 more"}},
	}
	for _, tt := range tests {
		if diff := cmp.Diff(tt.want, porcelainPaths(tt.status, tt.max)); diff != "" {
			t.Errorf("porcelainPaths(%q, %d) (-want +got):\n%s", tt.status, tt.max, diff)
		}
	}
}

// A run that leaves its work uncommitted says which paths: the boundary
// stop names them instead of only "left the tree dirty".
func TestDirtyOutcomeNamesThePaths(t *testing.T) {
	out, _, _ := runPreset(t, "codex", map[string]string{agentstandin.Result: "status: maybe\nevidence: x\ndecision: a | b\n"})
	if !out.Dirty || out.Err == nil {
		t.Fatalf("outcome %+v, want a dirty tree and the result file's problem", out)
	}
	if diff := cmp.Diff([]string{"?? rows/"}, out.DirtyPaths); diff != "" {
		t.Errorf("dirty paths (-want +got):\n%s", diff)
	}
}
