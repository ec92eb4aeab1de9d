package store

import "testing"

// A path below a scanned directory is skipped when it passes through a
// hidden directory; the scanned directory itself may be hidden
// (formats.kiro: [.kiro/specs]), as Files passes only the part below it.
func TestHiddenDir(t *testing.T) {
	t.Parallel()
	tests := []struct {
		rel  string
		want bool
	}{
		{"csv-export/requirements.md", false},
		{"a.md", false},
		{".git/x.md", true},
		{"f/.draft/x.md", true},
		{"./x.md", false},
	}
	for _, tt := range tests {
		if got := hiddenDir(tt.rel); got != tt.want {
			t.Errorf("hiddenDir(%q) = %v, want %v", tt.rel, got, tt.want)
		}
	}
}
