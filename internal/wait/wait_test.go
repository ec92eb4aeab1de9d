package wait

import (
	"context"
	"errors"
	"testing"
	"time"
)

func TestForEndsWithItsContext(t *testing.T) {
	t.Parallel()
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := For(ctx, time.Hour); !errors.Is(err, context.Canceled) {
		t.Errorf("For(cancelled, 1h) = %v, want context.Canceled", err)
	}
	if err := For(ctx, 0); !errors.Is(err, context.Canceled) {
		t.Errorf("For(cancelled, 0) = %v, want context.Canceled", err)
	}
	if err := For(context.Background(), time.Nanosecond); err != nil {
		t.Errorf("For(background, 1ns) = %v, want nil", err)
	}
}
