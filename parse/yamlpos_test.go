package parse

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"go.yaml.in/yaml/v3"
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
		{"past the end is the end of the last line", "a\n", 9, 1, Pos{1, 2}},
		{"the empty line after a final break is the end of the last line", "ab\r\n", 2, 1, Pos{1, 3}},
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

// yaml.v3 numbers a parser error's line from 0 and a scanner error's from
// 1, and puts an error at the end of the text on a line after the last line
// break, which no editor shows: SyntaxError corrects both, for every line
// ending.
func TestYAMLSyntaxError(t *testing.T) {
	tests := []struct {
		name string
		src  string // \n is replaced by each line ending
		want Pos
		msg  string
	}{
		{"scanner error", "a: 1\nb: 2\n c: 3\n", Pos{3, 1}, "mapping values are not allowed in this context"},
		{"parser error in a flow sequence", "a: 1\nb: 2\nc: [x\nd: 4\n", Pos{3, 1}, "did not find expected ',' or ']'"},
		{"parser error in a block collection", "a:\n  - b\n  c: 1\n", Pos{2, 1}, "did not find expected '-' indicator"},
		{"parser error in a flow mapping", "a: 1\nb: {x\n", Pos{2, 1}, "did not find expected ',' or '}'"},
		{"unterminated quote at the end after a break", "0: \"0\n", Pos{1, 6}, "found unexpected end of stream"},
		{"unterminated quote at the end without a break", "0: \"0", Pos{1, 1}, "found unexpected end of stream"},
	}
	for _, tt := range tests {
		for _, eol := range []struct{ name, s string }{{"LF", "\n"}, {"CRLF", "\r\n"}, {"CR", "\r"}} {
			t.Run(tt.name+"/"+eol.name, func(t *testing.T) {
				t.Parallel()
				src := []byte(strings.ReplaceAll(tt.src, "\n", eol.s))
				var n yaml.Node
				err := yaml.Unmarshal(src, &n)
				if err == nil {
					t.Fatalf("yaml.Unmarshal(%q) = nil; want a syntax error", src)
				}
				got, msg := NewYAMLPositions(src).SyntaxError(err)
				if diff := cmp.Diff(tt.want, got); diff != "" {
					t.Errorf("SyntaxError(%q) position (-want +got):\n%s", err, diff)
				}
				if msg != tt.msg {
					t.Errorf("SyntaxError(%q) message = %q; want %q", err, msg, tt.msg)
				}
			})
		}
	}
}
