package agent

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"syscall"
)

// A run can fail because the machine lost what the executor keeps on disk
// for it, not because of the entry or its agent: the disk filled up
// (ENOSPC) or the checkout was removed under the run (a person or a
// clean-up job deleted the cache mid-pass). Such a run is an environment
// loss: its outcome's error is a *LostError, the reconciler reruns the
// dispatch (bounded like an orphaned run) instead of stopping it
// `harness-error`, and the pass notes one problem naming the cause.

// LossKind is what a lost run lost (a closed vocabulary).
type LossKind string

// The loss kinds.
const (
	// LossDiskFull: a write of the run failed with ENOSPC.
	LossDiskFull LossKind = "disk-full"
	// LossCheckoutRemoved: the run's checkout no longer exists.
	LossCheckoutRemoved LossKind = "checkout-removed"
)

// LostError is the error of a run that lost its environment.
type LostError struct {
	Kind LossKind
	// Path is where the loss was found: the file whose write failed for
	// a full disk, or the checkout that was removed.
	Path string
	// Err is the error the run failed with.
	Err error
}

// Error names the cause and where it was found.
func (l *LostError) Error() string {
	switch l.Kind {
	case LossDiskFull:
		return fmt.Sprintf("disk full at %s: %v", l.Path, l.Err)
	case LossCheckoutRemoved:
		return fmt.Sprintf("checkout removed: %s no longer exists (%v)", l.Path, l.Err)
	}
	return fmt.Sprintf("%s at %s: %v", l.Kind, l.Path, l.Err)
}

// Unwrap returns the error the run failed with.
func (l *LostError) Unwrap() error { return l.Err }

// Cause says in a few words what was lost, for a pass's one problem.
func (l *LostError) Cause() string {
	if l.Kind == LossDiskFull {
		return "disk full at " + l.Path
	}
	return "checkout removed: " + l.Path
}

// AsLost reports whether err is, or wraps, a *LostError, and returns it.
func AsLost(err error) (*LostError, bool) {
	var l *LostError
	if errors.As(err, &l) {
		return l, true
	}
	return nil, false
}

// diskFull is fileSystemFull, a variable so that a test can fill a disk
// without mounting one.
var diskFull = fileSystemFull

// lostRun returns err as a *LostError when it is an environment loss of
// the run in checkout dir: an error wrapping ENOSPC; any error while the
// file system holding dir is full (a git process that hit ENOSPC says so
// only in its messages, and an agent's failure on a full disk is not the
// entry's); or, once the checkout was prepared, any error of a run whose
// checkout no longer exists. Any other error is returned as it is.
func lostRun(dir string, err error, prepared bool) error {
	if err == nil {
		return nil
	}
	if _, ok := AsLost(err); ok {
		return err
	}
	if errors.Is(err, syscall.ENOSPC) {
		path := dir
		var pe *fs.PathError
		if errors.As(err, &pe) && pe.Path != "" {
			path = pe.Path
		}
		return &LostError{Kind: LossDiskFull, Path: path, Err: err}
	}
	if at, full := diskFull(dir); full {
		return &LostError{Kind: LossDiskFull, Path: at, Err: err}
	}
	if _, serr := os.Lstat(dir); prepared && errors.Is(serr, fs.ErrNotExist) {
		return &LostError{Kind: LossCheckoutRemoved, Path: dir, Err: err}
	}
	return err
}

// settleLost marks out's error as an environment loss when it is one
// (lostRun) and reports whether it is. What a lost run left half done in
// its checkout is not a return: like an ended agent's (ErrEnded), the tree
// is not judged dirty, and the rerun's fresh checkout keeps any commits on
// a recovery ref.
func settleLost(dir string, out *Outcome) bool {
	if out.Unpushed {
		return false
	}
	out.Err = lostRun(dir, out.Err, true)
	if _, ok := AsLost(out.Err); !ok {
		return false
	}
	out.Dirty, out.DirtyPaths = false, nil
	return true
}
