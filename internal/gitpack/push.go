package gitpack

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp"
	"github.com/go-git/go-git/v5/plumbing/protocol/packp/capability"
	"github.com/go-git/go-git/v5/plumbing/transport"
	"github.com/go-git/go-git/v5/plumbing/transport/client"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
)

// ErrStale reports that the remote's reference was not at the update's Old
// value when the push began: someone else pushed first.
var ErrStale = errors.New("the remote reference moved")

// Update is one reference update of a push, with compare-and-swap: Ref
// goes from Old (zero for a reference the remote lacks) to New.
type Update struct {
	Ref      plumbing.ReferenceName
	Old, New plumbing.Hash
}

// Push sends pack (every object New has that the remote at Old lacks,
// usually one Encode made) to the remote url over git's receive-pack and
// asks it to apply u. A remote whose reference is not at Old is ErrStale
// and nothing is sent; the remote's own refusal (a lost race under its
// lock, a declining hook, branch protection) is returned as it reports
// it, with its side-band messages written to progress when it is not nil.
// Errors may hold url as given: callers redact it.
//
// go-git's own push computes what to send by walking every object
// reachable from the remote's refs, which grows with the history; a writer
// that made the objects already knows them.
func Push(ctx context.Context, url string, auth transport.AuthMethod, u Update, pack func() ([]byte, error), progress io.Writer) error {
	return receivePack(ctx, url, auth, u.Ref, u.New, func(remote plumbing.Hash, _ map[plumbing.ReferenceName]plumbing.Hash) (func(io.Writer) error, error) {
		if remote != u.Old {
			return nil, fmt.Errorf("%w: %s is at %s, not %s", ErrStale, u.Ref.Short(), short(remote), short(u.Old))
		}
		b, err := pack()
		if err != nil {
			return nil, fmt.Errorf("write the pack: %w", err)
		}
		return func(w io.Writer) error { _, err := w.Write(b); return err }, nil
	}, progress)
}

// Ahead is a push that moves Ref forward to New and never overwrites it:
// the remote's reference may be missing or at any commit New descends
// from, as the caller's repository tells.
type Ahead struct {
	Ref plumbing.ReferenceName
	New plumbing.Hash
	// Descends reports whether New descends from remote, the reference's
	// value on the remote (never zero, never New).
	Descends func(remote plumbing.Hash) (bool, error)
	// Pack prepares, before anything is sent, the pack of every object
	// New has that the remote lacks, remote being the reference's value
	// there (zero when the remote lacks it) and heads the remote's
	// branches; its writer then writes it. An error of Pack sends
	// nothing.
	Pack func(remote plumbing.Hash, heads map[plumbing.ReferenceName]plumbing.Hash) (func(w io.Writer) error, error)
}

// PushAhead pushes a as git push does without --force, in one
// receive-pack exchange: a remote already at New is success and nothing
// is sent (an earlier push landed and its answer was lost); a remote at a
// commit New does not descend from is ErrStale and nothing is sent. The
// remote's own refusal and progress are as for Push.
func PushAhead(ctx context.Context, url string, auth transport.AuthMethod, a Ahead, progress io.Writer) error {
	return receivePack(ctx, url, auth, a.Ref, a.New, func(remote plumbing.Hash, heads map[plumbing.ReferenceName]plumbing.Hash) (func(io.Writer) error, error) {
		switch {
		case remote == a.New:
			return nil, nil
		case !remote.IsZero():
			ok, err := a.Descends(remote)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, fmt.Errorf("%w: %s is at %s, which %s does not descend from", ErrStale, a.Ref.Short(), short(remote), short(a.New))
			}
		}
		return a.Pack(remote, heads)
	}, progress)
}

// receivePack is one push of ref to New over receive-pack. plan sees the
// remote's value of ref (zero when it lacks it) and its branches, and
// returns the writer of the pack to send, or nil with no error when there
// is nothing to do; everything that can fail but the writing is done in
// plan, so that a failure sends nothing and leaves the session to close
// cleanly (go-git's file:// receive-pack waits on an input that a push
// broken off mid-pack never ends). The update's old value is the one
// advertised, which receive-pack checks again under its lock.
func receivePack(ctx context.Context, url string, auth transport.AuthMethod, ref plumbing.ReferenceName, New plumbing.Hash,
	plan func(remote plumbing.Hash, heads map[plumbing.ReferenceName]plumbing.Hash) (func(io.Writer) error, error), progress io.Writer) (err error) {
	ep, err := transport.NewEndpoint(url)
	if err != nil {
		return err
	}
	c, err := client.NewClient(ep)
	if err != nil {
		return err
	}
	sess, err := c.NewReceivePackSession(ep, auth)
	if err != nil {
		return err
	}
	defer func() {
		if cerr := sess.Close(); err == nil && cerr != nil {
			err = cerr
		}
	}()
	ar, err := sess.AdvertisedReferencesContext(ctx)
	if err != nil {
		return err
	}
	refs, err := ar.AllReferences()
	if err != nil {
		return err
	}
	var remote plumbing.Hash
	if r, ok := refs[ref]; ok {
		remote = r.Hash()
	}
	heads := make(map[plumbing.ReferenceName]plumbing.Hash)
	for name, r := range refs {
		if name.IsBranch() && r.Type() == plumbing.HashReference {
			heads[name] = r.Hash()
		}
	}
	write, err := plan(remote, heads)
	if err != nil || write == nil {
		return err
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	if progress != nil && ar.Capabilities.Supports(capability.Sideband64k) {
		req.Capabilities.Set(capability.Sideband64k)
		req.Progress = progress
	}
	req.Commands = []*packp.Command{{Name: ref, Old: remote, New: New}}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		err := write(wr)
		_ = wr.CloseWithError(err) // always nil
		done <- err
	}()
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		// The pack's writer may be blocked on the pipe: closing the
		// reader ends it.
		_ = rd.CloseWithError(err)
		<-done
		return err
	}
	if err := <-done; err != nil {
		return fmt.Errorf("write the pack: %w", err)
	}
	if rs != nil {
		// receive-pack checks the old value under its lock: its
		// report says why it did not update.
		if err := rs.Error(); err != nil {
			return err
		}
	}
	return nil
}

// short is a commit's 7-character abbreviation, as people read it.
func short(h plumbing.Hash) string { return h.String()[:7] }

// TokenAuth is the credential GitHub takes for git over https with an
// installation or personal token (user x-access-token), or nil without a
// token. Its password never appears in an error go-git returns.
func TokenAuth(token string) transport.AuthMethod {
	if token == "" {
		return nil
	}
	return &githttp.BasicAuth{Username: "x-access-token", Password: token}
}
