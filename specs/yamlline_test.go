package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// A YAML syntax error points at the line it is on (or where the broken
// construct starts), not the line before: yaml.v3 numbers its parser's
// errors from 0 (issue 31).
func TestConfigSyntaxErrorLine(t *testing.T) {
	t.Parallel()
	tests := []struct {
		in   string
		line int
		msg  string
	}{
		{"defaults:\n  repo: acme/api\nexecutor:\n  kind: [none\n", 4, "gallivant.yaml is not valid YAML: did not find expected ',' or ']'"},
		{"a: 1\nb: : 2\n", 2, "gallivant.yaml is not valid YAML: mapping values are not allowed in this context"},
		{"a: 1\n\tb: 2\n", 2, "gallivant.yaml is not valid YAML: found a tab character that violates indentation"},
		{"defaults:\n  repo: acme/api\n  base: {main\n", 3, "gallivant.yaml is not valid YAML: did not find expected ',' or '}'"},
	}
	for _, tt := range tests {
		_, ds := ParseConfig("gallivant.yaml", []byte(tt.in))
		if len(ds) != 1 {
			t.Fatalf("%q: %v", tt.in, ds)
		}
		if diff := cmp.Diff([]any{tt.line, tt.msg}, []any{ds[0].Line, ds[0].Message}); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.in, diff)
		}
	}
}
