package store

import (
	"context"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// sendPack pushes the tip to ref over git's receive-pack with
// compare-and-swap on head, sending exactly the objects the pass wrote, as
// the pack flush wrote them (see storepack.go).
// go-git's own push computes what to send by walking every object
// reachable from the remote's refs, which grew with the control branch's
// history (+474 ms and 263 MB per committing pass at 11,000 commits); the
// pass already knows its new objects. A remote branch that is no longer at
// head is ErrPushRejected, as is receive-pack refusing the update (another
// reconciler won the race between the advertisement and the update).
func (s *Store) sendPack(ctx context.Context, ref plumbing.ReferenceName) (err error) {
	ep, err := transport.NewEndpoint(s.remote)
	if err != nil {
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	sess, err := c.NewReceivePackSession(ep, s.auth)
	if err != nil {
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	defer func() {
		if cerr := sess.Close(); err == nil && cerr != nil {
			err = fmt.Errorf("push the control branch: %w", scrub(cerr))
		}
	}()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	var remote plumbing.Hash
	if r, ok := refs[ref]; ok {
		remote = r.Hash()
	}
	if remote != s.head {
		return fmt.Errorf("%w: %s is at %s, not %s", ErrPushRejected, ref.Short(), short(remote.String()), short(s.head.String()))
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	// The remote's messages say why a push is refused (storerefused.go).
	msgs := &remoteMessages{}
	if ar.Capabilities.Supports(capability.Sideband64k) {
		req.Capabilities.Set(capability.Sideband64k)
		req.Progress = msgs
	}
	req.Commands = []*packp.Command{{Name: ref, Old: s.head, New: s.tip}}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		pack, err := s.written.sendable()
		if err == nil {
			_, err = wr.Write(pack)
		}
		done <- wr.CloseWithError(err)
	}()
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		_ = rd.Close()
		<-done
		if rejected(err) {
			return fmt.Errorf("%w: %v", ErrPushRejected, scrub(err))
		}
		if perr := refusedByProtection(ref.Short(), msgs); perr != nil {
			return perr
		}
		return fmt.Errorf("push the control branch: %w", scrub(err))
	}
	if err := <-done; err != nil {
		return fmt.Errorf("push the control branch: %w", err)
	}
	if rs != nil {
		if err := rs.Error(); err != nil {
			// receive-pack checks the old value under its lock: a
			// ref it cannot update at head is a lost race; anything
			// else (an unpack failure, a declining hook) is not.
			if rejected(err) {
				return fmt.Errorf("%w: %v", ErrPushRejected, scrub(err))
			}
			if perr := refusedByProtection(ref.Short(), msgs); perr != nil {
				return perr
			}
			return fmt.Errorf("push the control branch: %w", scrub(err))
		}
	}
	return nil
}
