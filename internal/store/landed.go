package store

import (
	"context"
	"errors"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
)

// landedTries bounds the reads of the remote's branch after a failed
// push: the network that lost the push's answer may fail a read too.
const landedTries = 3

// PushLanded reads the control branch back from the remote after Push
// failed with err, as a write whose answer was lost is read back before
// it is made again: a push that landed although its client saw a 502 or
// a reset connection leaves the branch at the tip. Then the push is
// recorded as made, exactly as a successful Push records it, and
// PushLanded reports true. A rejected or refused push, a store without a
// remote, a branch elsewhere, or a read that fails report false, and the
// error stands.
func (s *Store) PushLanded(ctx context.Context, err error) bool {
	if err == nil || s.inPlace || !s.Unpushed() || errors.Is(err, ErrPushRejected) || errors.Is(err, ErrPushRefused) {
		return false
	}
	ref := plumbing.NewBranchReferenceName(s.branch)
	for try := 0; try < landedTries; try++ {
		at, rerr := s.remoteHead(ctx, ref)
		if rerr != nil {
			if ctx.Err() != nil {
				return false
			}
			continue
		}
		if at != s.tip {
			return false
		}
		s.head = s.tip
		if s.written != nil {
			s.written = s.written.afterPush()
		}
		return true
	}
	return false
}

// remoteHead is where ref is on the remote, from its advertisement; the
// zero hash when the remote has no such branch.
func (s *Store) remoteHead(ctx context.Context, ref plumbing.ReferenceName) (plumbing.Hash, error) {
	ep, err := transport.NewEndpoint(s.remote)
	if err != nil {
		return plumbing.ZeroHash, scrub(err)
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return plumbing.ZeroHash, scrub(err)
	}
	sess, err := c.NewUploadPackSession(ep, s.auth)
	if err != nil {
		return plumbing.ZeroHash, scrub(err)
	}
	defer sess.Close()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return plumbing.ZeroHash, scrub(err)
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return plumbing.ZeroHash, scrub(err)
	}
	if r, ok := refs[ref]; ok {
		return r.Hash(), nil
	}
	return plumbing.ZeroHash, nil
}
