package main

import "testing"

func TestRequestOrigin(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name, subject, message, want string
		ok                           bool
	}{
		{"a ledger request", "loop: retry row 2", "loop: retry row 2\n\nRow 2 gets one more attempt.\n\nGallivant-Request: retry 2 | read the README\n",
			`last request: "retry 2 | read the README", from the ledger's ## Requests (loop: retry row 2)`, true},
		{"a pull-request command", "loop: request resume from acme/api#1 by @bob",
			"loop: request resume from acme/api#1 by @bob\n\n@bob asked.\n\nGallivant-Request: resume | closed by mistake\nGallivant-PR: acme/api#1\nGallivant-Comment-Id: 42\nGallivant-Comment: https://github.com/acme/api/pull/1#issuecomment-42\n",
			`last request: "resume | closed by mistake", from a comment by @bob on acme/api#1 (https://github.com/acme/api/pull/1#issuecomment-42)`, true},
		{"a command without a URL", "loop: request recheck from acme/api#1 by @bob",
			"loop: request recheck from acme/api#1 by @bob\n\nx\n\nGallivant-Request: recheck\nGallivant-Comment-Id: 7\n",
			`last request: "recheck", from a comment by @bob on acme/api#1 (comment 7)`, true},
		{"a dashboard box", "loop: request resume from acme/control#3 by @bob",
			"loop: request resume from acme/control#3 by @bob\n\n@bob ticked.\n\nGallivant-Request: resume | from the dashboard issue\nGallivant-Box: 1795946400002\nGallivant-Dashboard: https://github.com/acme/control/issues/3\n",
			`last request: "resume | from the dashboard issue", from a box of the dashboard issue acme/control#3 ticked by @bob (box 1795946400002)`, true},
		{"the loop's own resume", "loop: resume", "loop: resume\n\nResumed: the return arrived.\n", "", false},
		{"a person's commit", "add a request", "add a request\n\nGallivant-Request: retry 1 | x\n", "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			got, ok := requestOrigin(tt.subject, tt.message)
			if got != tt.want || ok != tt.ok {
				t.Errorf("requestOrigin = %q, %v; want %q, %v", got, ok, tt.want, tt.ok)
			}
		})
	}
}
