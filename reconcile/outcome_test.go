package reconcile

import (
	"errors"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
)

func TestDirtyWhat(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		out  agent.Outcome
		want string
	}{
		{"clean", agent.Outcome{Err: errors.New("x")}, ""},
		{"paths only", agent.Outcome{Dirty: true, DirtyPaths: []string{"M calc.go", "?? notes.txt"}}, "uncommitted M calc.go, ?? notes.txt"},
		{"the result file's problem", agent.Outcome{Dirty: true, DirtyPaths: []string{"?? rows/"}, Log: "/w/logs/x-1.log",
			Err: errors.New("the agent's return could not be completed: the result file /w/results/x-1.result: result line 2: character 12 is U+001B (ESC), a control character")},
			"uncommitted ?? rows/; the agent's return could not be completed: the result file /w/results/x-1.result: result line 2: character 12 is U+001B (ESC), a control character; log /w/logs/x-1.log"},
		{"an agent's file name is data", agent.Outcome{Dirty: true, DirtyPaths: []string{"?? a\x1b[31m\nb"}}, "uncommitted ?? a [31m b"},
		{"bounded", agent.Outcome{Dirty: true, DirtyPaths: []string{"?? " + strings.Repeat("x", 1000)}}, "uncommitted ?? " + strings.Repeat("x", maxWhat-len("uncommitted ?? ")) + "…"},
	}
	for _, tt := range tests {
		if got := dirtyWhat(tt.out); got != tt.want {
			t.Errorf("%s: dirtyWhat = %q; want %q", tt.name, got, tt.want)
		}
	}
}
