package gitpack

import (
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/url"
	"strings"
	"syscall"

	"github.com/go-git/go-git/v5/plumbing"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// RemoteFailure reports a failure of a go-git fetch or push that is
// certainly the remote's or the network's and may pass: a 5xx, 408 or 429
// answer, or a connection reset, refused, timed out or closed on its way.
// It is never damage of the local repository, and a cancelled or expired
// context is the caller's, not the remote's.
func RemoteFailure(err error) bool {
	if err == nil || errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		return false
	}
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) && ue.Err != nil {
		// go-git wraps HTTP statuses and net/http's errors in an error
		// without Unwrap.
		return RemoteFailure(ue.Err)
	}
	if c := HTTPStatus(err); c != 0 {
		return c >= 500 || c == http.StatusTooManyRequests || c == http.StatusRequestTimeout
	}
	var ne net.Error
	var urlErr *url.Error
	if errors.As(err, &ne) || errors.As(err, &urlErr) {
		// A request that failed on its way (net/http reports a
		// connection the remote closed as an *url.Error of io.EOF).
		return true
	}
	if errors.Is(err, syscall.ECONNRESET) || errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.EPIPE) || errors.Is(err, net.ErrClosed) {
		return true
	}
	// go-git flattens some transport errors into text.
	msg := err.Error()
	for _, m := range []string{"connection reset by peer", "broken pipe", "connection refused", "i/o timeout"} {
		if strings.Contains(msg, m) {
			return true
		}
	}
	return false
}

// CutShort reports a stream that ended early: a pack or a response cut
// off in transfer, or, as go-git reports the two alike, a local pack cut
// short. Trying again may mend the first; a caller that sees it persist
// may take its repository for damaged.
func CutShort(err error) bool {
	return err != nil && !errors.Is(err, context.Canceled) && !errors.Is(err, context.DeadlineExceeded) &&
		(errors.Is(err, io.ErrUnexpectedEOF) || strings.Contains(err.Error(), "unexpected EOF"))
}

// HTTPStatus is the HTTP status a go-git fetch or push failed with (go-git
// wraps it where errors.As cannot see it), or 0 for any other failure.
func HTTPStatus(err error) int {
	var ue *plumbing.UnexpectedError
	if errors.As(err, &ue) && ue.Err != nil {
		return HTTPStatus(ue.Err)
	}
	var he *githttp.Err
	if errors.As(err, &he) {
		return he.StatusCode()
	}
	return 0
}
