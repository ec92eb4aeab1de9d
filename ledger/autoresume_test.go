package ledger

import "testing"

// The stops whose condition was a document clear by themselves once the
// document is back (L-60's auto-resume); every other stop waits for a
// person.
func TestDocumentResume(t *testing.T) {
	t.Parallel()
	base := mustParse(t, "testdata/roundtrip/midloop.md")
	approved := base.Delivery.Contract
	tests := []struct {
		name     string
		reason   StopReason
		contract string
		want     string
	}{
		{"spec gone", StopSpecGone, approved, "the spec exists again"},
		{"spec illegal", StopSpecIllegal, approved, "the spec is valid again"},
		{"contract reverted", StopSpecChanged, approved, "the spec's contract is the approved one again"},
		{"contract still changed", StopSpecChanged, "0123456789ab", ""},
		{"boundary", StopBoundary, approved, ""},
		{"interrupted", StopInterrupted, approved, ""},
		{"harness error", StopHarnessError, approved, ""},
	}
	for _, tt := range tests {
		n, _ := Stop(base, tt.reason, "detail", 0)
		if got := DocumentResume(n, tt.contract); got != tt.want {
			t.Errorf("DocumentResume(%s) = %q; want %q", tt.name, got, tt.want)
		}
	}
	if got := DocumentResume(base, approved); got != "" {
		t.Errorf("DocumentResume(not stopped) = %q; want \"\"", got)
	}
}

// Only a well-formed resume line is a person's resume.
func TestResumeAsked(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		lines []string
		want  bool
	}{
		{"none", nil, false},
		{"resume", []string{"resume | reopened by mistake"}, true},
		{"resume after another", []string{"reopen 2 | flaky", "resume | try again"}, true},
		{"malformed resume", []string{"resume"}, false},
		{"another request", []string{"reopen 2 | flaky"}, false},
	}
	for _, tt := range tests {
		l := mustParse(t, "testdata/roundtrip/midloop.md").Clone()
		l.Requests, l.HasRequests = tt.lines, true
		if got := ResumeAsked(l); got != tt.want {
			t.Errorf("ResumeAsked(%s) = %v; want %v", tt.name, got, tt.want)
		}
	}
}
