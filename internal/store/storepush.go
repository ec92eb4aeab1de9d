package store

import (
	"context"
	"errors"
	"fmt"

	"github.com/gallivant/gallivant/internal/gitpack"
	"github.com/go-git/go-git/v5/plumbing"
)

// sendPack pushes the tip to ref with compare-and-swap on head, sending
// exactly the objects the pass wrote, as the pack flush wrote them (see
// storepack.go): go-git's own push walks every object reachable from the
// remote's refs (+474 ms and 263 MB per committing pass at 11,000
// commits). A remote branch that is no longer at head is ErrPushRejected,
// as is receive-pack refusing the update (another reconciler won the race
// between the advertisement and the update).
func (s *Store) sendPack(ctx context.Context, ref plumbing.ReferenceName) error {
	// The remote's messages say why a push is refused (storerefused.go).
	msgs := &remoteMessages{}
	err := gitpack.Push(ctx, s.remote, s.auth, gitpack.Update{Ref: ref, Old: s.head, New: s.tip}, s.written.sendable, msgs)
	switch {
	case err == nil:
		return nil
	case errors.Is(err, gitpack.ErrStale), rejected(err):
		return fmt.Errorf("%w: %v", ErrPushRejected, scrub(err))
	}
	if perr := refusedByProtection(ref.Short(), msgs); perr != nil {
		return perr
	}
	return fmt.Errorf("push the control branch: %w", scrub(err))
}
