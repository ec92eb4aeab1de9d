package parse

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestYAMLPositions(t *testing.T) {
	tests := []struct {
		name      string
		src       string
		line, col int
		want      Pos
	}{
		{"lf", "a: 1\nb: 2\n", 2, 4, Pos{2, 4}},
		{"crlf", "a: 1\r\nb: 2\r\n", 2, 4, Pos{2, 4}},
		{"lone cr counts as YAML counts it", "a: 1\r\rb: 2", 3, 1, Pos{3, 1}},
		{"LS stays on the line", "a: 1\u2028b: 2\n", 2, 4, Pos{1, 9}},
		{"NEL then LF", "a\u0085b\nc", 3, 1, Pos{2, 1}},
		{"past the end is clamped", "a\n", 9, 1, Pos{2, 1}},
		{"empty", "", 1, 1, Pos{1, 1}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := NewYAMLPositions([]byte(tt.src)).Pos(tt.line, tt.col)
			if diff := cmp.Diff(tt.want, got); diff != "" {
				t.Errorf("Pos(%d, %d) of %q (-want +got):\n%s", tt.line, tt.col, tt.src, diff)
			}
		})
	}
}
