package agent

import (
	"errors"
	"testing"
)

// transientGit tells git's network and GitHub failures, as the stand-in's
// git faults make them, from a repository's damage.
func TestTransientGit(t *testing.T) {
	t.Parallel()
	tests := []struct {
		msg  string
		want bool
	}{
		{"git fetch: exit status 128: error: RPC failed; HTTP 500 curl 22 The requested URL returned error: 500\nfatal: expected 'packfile'", true},
		{"git fetch: exit status 128: fatal: unable to access 'http://127.0.0.1:1/acme/api.git/': The requested URL returned error: 503", true},
		{"git fetch: exit status 128: fatal: unable to access 'http://127.0.0.1:1/a/b.git/': Recv failure: Connection reset by peer", true},
		{"git fetch: exit status 128: error: RPC failed; curl 18 transfer closed with outstanding read data remaining\nfatal: early EOF", true},
		{"git fetch: exit status 128: fatal: expected flush after ref listing", true},
		{"git fetch: exit status 128: error: object file .git/objects/ab/cdef is empty\nfatal: loose object abcdef is corrupt", false},
		{"git fetch: exit status 128: fatal: bad object refs/remotes/origin/main", false},
		{"git fetch: exit status 128: fatal: unable to access 'x': The requested URL returned error: 404", false},
	}
	for _, tt := range tests {
		if got := transientGit(errors.New(tt.msg)); got != tt.want {
			t.Errorf("transientGit(%q) = %v, want %v", tt.msg, got, tt.want)
		}
	}
}
