// Package wait is the one way gallivant's shells wait between tries: a
// timer that a cancelled context cuts short. It is internal; its callers
// hand it to their code as a func(context.Context, time.Duration) error so
// that tests wait nothing.
package wait

import (
	"context"
	"time"
)

// For waits d, or until ctx is done, and then returns ctx's error; a d of
// zero or less returns at once with ctx's error, if any.
func For(ctx context.Context, d time.Duration) error {
	if d <= 0 {
		return ctx.Err()
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return nil
	case <-ctx.Done():
		return ctx.Err()
	}
}
