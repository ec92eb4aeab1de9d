package reconcile

import (
	"errors"
	"fmt"
	"testing"

	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/gallivant/gallivant/internal/store"
)

// What one entry's error does to the pass: a rejected push, the crash hook
// and a cancelled pass abort it; GitHub refusing everyone halts it with the
// error; a rate limit halts it after a note; anything else is a note.
func TestEntryFailureOf(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name      string
		err       error
		cancelled bool
		want      entryFailure
	}{
		{"push rejected", fmt.Errorf("commit: %w", store.ErrPushRejected), false, failAbort},
		{"crash hook", fmt.Errorf("%w: executor:after", errCrash), false, failAbort},
		{"cancelled", errors.New("context canceled"), true, failAbort},
		{"cancelled rate limit", &githubapi.RateLimitedError{Op: "list pulls"}, true, failAbort},
		{"credentials", fmt.Errorf("read pr: %w", githubapi.ErrCredentials), false, failFatal},
		{"unreachable", fmt.Errorf("read pr: %w", githubapi.ErrUnreachable), false, failFatal},
		{"rate limited", fmt.Errorf("read pr: %w", &githubapi.RateLimitedError{Op: "list pulls"}), false, failRateLimited},
		{"other", errors.New("comment 404"), false, failNote},
	}
	for _, tt := range tests {
		if got := entryFailureOf(tt.err, tt.cancelled); got != tt.want {
			t.Errorf("entryFailureOf(%s) = %d; want %d", tt.name, got, tt.want)
		}
	}
}
