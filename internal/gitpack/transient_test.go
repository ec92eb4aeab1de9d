package gitpack

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"syscall"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// RemoteFailure, CutShort and HTTPStatus read go-git's errors as go-git
// makes them: an HTTP status inside an UnexpectedError, which errors.As
// cannot see through.
func TestTransientFailures(t *testing.T) {
	t.Parallel()
	status := func(code int) error {
		return plumbing.NewUnexpectedError(githttp.NewErr(&http.Response{StatusCode: code, Request: &http.Request{URL: &url.URL{}}, Body: io.NopCloser(strings.NewReader(""))}))
	}
	tests := []struct {
		name          string
		err           error
		remote, short bool
		code          int
	}{
		{"503", status(503), true, false, 503},
		{"502 wrapped", fmt.Errorf("push: %w", status(502)), true, false, 502},
		{"429", status(429), true, false, 429},
		{"422", status(422), false, false, 422},
		{"reset", fmt.Errorf("read: %w", syscall.ECONNRESET), true, false, 0},
		{"url error", &url.Error{Op: "Post", URL: "https://github.com/a/b.git", Err: io.EOF}, true, false, 0},
		{"cut short", fmt.Errorf("read the pack: %w", io.ErrUnexpectedEOF), false, true, 0},
		{"not found", transport.ErrRepositoryNotFound, false, false, 0},
		{"cancelled", fmt.Errorf("push: %w: %w", context.Canceled, syscall.ECONNRESET), false, false, 0},
		{"nil", nil, false, false, 0},
		{"refused", errors.New("command error on refs/heads/x: pre-receive hook declined"), false, false, 0},
	}
	for _, tt := range tests {
		if got := RemoteFailure(tt.err); got != tt.remote {
			t.Errorf("%s: RemoteFailure = %v, want %v", tt.name, got, tt.remote)
		}
		if got := CutShort(tt.err); got != tt.short {
			t.Errorf("%s: CutShort = %v, want %v", tt.name, got, tt.short)
		}
		if got := HTTPStatus(tt.err); got != tt.code {
			t.Errorf("%s: HTTPStatus = %d, want %d", tt.name, got, tt.code)
		}
	}
}
