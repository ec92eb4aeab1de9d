package ghstandin

import "testing"

// TestAnnounceActions pins the action each event kind takes from a
// resource as it was before a request and as it is after.
func TestAnnounceActions(t *testing.T) {
	t.Parallel()
	pulls := []struct {
		name string
		was  pullMark
		seen bool
		now  pull
		want string
	}{
		{"new", pullMark{}, false, pull{State: "open", HeadSHA: "a"}, "opened"},
		{"new closed", pullMark{}, false, pull{State: "closed"}, "opened"},
		{"closed", pullMark{state: "open", head: "a"}, true, pull{State: "closed", HeadSHA: "b"}, "closed"},
		{"reopened", pullMark{state: "closed", head: "a"}, true, pull{State: "open", HeadSHA: "b"}, "reopened"},
		{"pushed", pullMark{state: "open", head: "a"}, true, pull{State: "open", HeadSHA: "b"}, "synchronize"},
		{"unchanged", pullMark{state: "open", head: "a"}, true, pull{State: "open", HeadSHA: "a"}, ""},
		{"closed and pushed", pullMark{state: "closed", head: "a"}, true, pull{State: "closed", HeadSHA: "b"}, ""},
	}
	for _, tc := range pulls {
		if got := pullAction(tc.was, tc.seen, &tc.now); got != tc.want {
			t.Errorf("pullAction(%s) = %q; want %q", tc.name, got, tc.want)
		}
	}
	reviews := []struct {
		was   string
		seen  bool
		state string
		want  string
	}{
		{"", false, "APPROVED", "submitted"},
		{"", false, "PENDING", ""},
		{"PENDING", true, "COMMENTED", ""},
		{"APPROVED", true, "DISMISSED", "dismissed"},
		{"DISMISSED", true, "DISMISSED", ""},
	}
	for _, tc := range reviews {
		if got := reviewAction(tc.was, tc.seen, tc.state); got != tc.want {
			t.Errorf("reviewAction(%q, %t, %q) = %q; want %q", tc.was, tc.seen, tc.state, got, tc.want)
		}
	}
	runs := []struct {
		was                string
		seen               bool
		status, conclusion string
		want               string
	}{
		{"", false, "queued", "", "created"},
		{"", false, "completed", "success", "created"},
		{"in_progress/", true, "completed", "failure", "completed"},
		{"completed/failure", true, "completed", "success", "completed"},
		{"completed/success", true, "completed", "success", ""},
		{"queued/", true, "in_progress", "", ""},
	}
	for _, tc := range runs {
		if got := checkRunAction(tc.was, tc.seen, tc.status, tc.conclusion); got != tc.want {
			t.Errorf("checkRunAction(%q, %t, %q, %q) = %q; want %q", tc.was, tc.seen, tc.status, tc.conclusion, got, tc.want)
		}
	}
}
