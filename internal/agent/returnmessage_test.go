package agent

import (
	"strings"
	"testing"
)

// TestReturnMessage builds the return commit's message from a result:
// a review round answers whatever the result holds, a first run needs one.
func TestReturnMessage(t *testing.T) {
	t.Parallel()
	const src = "the result file " + ResultName
	for _, tc := range []struct {
		name    string
		round   int
		data    string
		usage   Usage
		want    string
		wantOK  bool
		wantErr string
	}{
		{"round, no result", 2, "", Usage{}, "Answer review round 2\n", true, ""},
		{"round, decision and usage", 1, "status: done\nevidence: go test ./x; ok\ndecision: renamed it | nothing left\n", Usage{Tokens: 12, Cost: "0.5"},
			"Answer review round 1\n\nrenamed it | nothing left\n\ntokens: 12\ncost: 0.5\n", true, ""},
		{"round, decision alone", 1, "decision: renamed it | nothing left\n", Usage{}, "Answer review round 1\n", true, ""},
		{"round, malformed result", 1, "what is this\n", Usage{}, "Answer review round 1\n", true, ""},
		{"first run, no result", 0, " \n", Usage{}, "", false, ""},
		{"first run, malformed result", 0, "what is this\n", Usage{}, "", false, src + ": result line 1"},
	} {
		got, ok, err := returnMessage(Task{Round: tc.round}, []byte(tc.data), src, tc.usage)
		if tc.wantErr != "" {
			if err == nil || !strings.HasPrefix(err.Error(), tc.wantErr) {
				t.Errorf("returnMessage(%s) error = %v; want one starting %q", tc.name, err, tc.wantErr)
			}
			continue
		}
		if err != nil || got != tc.want || ok != tc.wantOK {
			t.Errorf("returnMessage(%s) = %q, %t, %v; want %q, %t, nil", tc.name, got, ok, err, tc.want, tc.wantOK)
		}
	}
}
