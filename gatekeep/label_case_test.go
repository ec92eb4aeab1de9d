package gatekeep

import "testing"

// GitHub keeps one label per name in any case (issue 30 item 5): a pull
// request a person labelled Ready-For-Human carries the ready label.
func TestHasLabelIgnoresCase(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		labels []string
		want   bool
	}{
		{[]string{"ready-for-human"}, true},
		{[]string{"Ready-For-Human"}, true},
		{[]string{"bug", "READY-FOR-HUMAN"}, true},
		{[]string{"ready-for-humans"}, false},
		{nil, false},
	} {
		if got := (Digest{Labels: tc.labels}).HasLabel("ready-for-human"); got != tc.want {
			t.Errorf("HasLabel(ready-for-human) on %q = %v, want %v", tc.labels, got, tc.want)
		}
	}
}
