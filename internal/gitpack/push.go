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
func Push(ctx context.Context, url string, auth transport.AuthMethod, u Update, pack func() ([]byte, error), progress io.Writer) (err error) {
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
	if r, ok := refs[u.Ref]; ok {
		remote = r.Hash()
	}
	if remote != u.Old {
		return fmt.Errorf("%w: %s is at %s, not %s", ErrStale, u.Ref.Short(), short(remote), short(u.Old))
	}
	req := packp.NewReferenceUpdateRequestFromCapabilities(ar.Capabilities)
	if progress != nil && ar.Capabilities.Supports(capability.Sideband64k) {
		req.Capabilities.Set(capability.Sideband64k)
		req.Progress = progress
	}
	req.Commands = []*packp.Command{{Name: u.Ref, Old: u.Old, New: u.New}}
	rd, wr := io.Pipe()
	req.Packfile = rd
	done := make(chan error, 1)
	go func() {
		b, err := pack()
		if err == nil {
			_, err = wr.Write(b)
		}
		done <- wr.CloseWithError(err)
	}()
	rs, err := sess.ReceivePack(ctx, req)
	if err != nil {
		_ = rd.Close()
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
