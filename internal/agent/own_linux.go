package agent

import (
	"fmt"
	"os"
	"syscall"
)

// openedHook, in tests, runs after each directory is opened and before
// its entries are read: where a process of the agent's would swap it.
var openedHook func(dir string)

// maxTreeDepth bounds the directories chownTree descends into.
const maxTreeDepth = 256

// chownTree gives the fresh checkout at root to the agent's user without
// ever following a path the agent could change: every directory is opened
// relative to its parent's descriptor with O_NOFOLLOW, every entry is
// changed with fchownat(AT_SYMLINK_NOFOLLOW) relative to its directory's
// descriptor, a directory is handed over only after its entries, and root
// last. A symlink is changed itself, never its target; a file with a
// second hard link is refused, since the link's other name may be outside
// the checkout.
func chownTree(root string, uid, gid int) error {
	fd, err := syscall.Open(root, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("open %s: %w", root, err)
	}
	defer syscall.Close(fd)
	if err := chownEntries(fd, root, uid, gid, 0); err != nil {
		return err
	}
	if err := syscall.Fchown(fd, uid, gid); err != nil {
		return fmt.Errorf("chown %s: %w", root, err)
	}
	return nil
}

// chownEntries hands over the entries of the directory open as dirfd.
func chownEntries(dirfd int, name string, uid, gid, depth int) error {
	if depth > maxTreeDepth {
		return fmt.Errorf("%s: deeper than %d directories", name, maxTreeDepth)
	}
	if openedHook != nil {
		openedHook(name)
	}
	names, err := readDirNames(dirfd, name)
	if err != nil {
		return err
	}
	for _, n := range names {
		p := name + "/" + n
		var st syscall.Stat_t
		if err := fstatat(dirfd, n, &st); err != nil {
			return fmt.Errorf("stat %s: %w", p, err)
		}
		switch st.Mode & syscall.S_IFMT {
		case syscall.S_IFDIR:
			cfd, err := syscall.Openat(dirfd, n, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
			if err != nil {
				return fmt.Errorf("open %s: %w", p, err)
			}
			err = chownEntries(cfd, p, uid, gid, depth+1)
			if err == nil {
				if err = syscall.Fchown(cfd, uid, gid); err != nil {
					err = fmt.Errorf("chown %s: %w", p, err)
				}
			}
			syscall.Close(cfd)
			if err != nil {
				return err
			}
		case syscall.S_IFREG:
			if st.Nlink > 1 {
				return fmt.Errorf("%s has %d hard links: refused, another of its names may be outside the checkout", p, st.Nlink)
			}
			fallthrough
		default:
			if err := syscall.Fchownat(dirfd, n, uid, gid, atSymlinkNofollow); err != nil {
				return fmt.Errorf("chown %s: %w", p, err)
			}
		}
	}
	return nil
}

// Linux's AT_SYMLINK_NOFOLLOW and O_PATH, which package syscall does not
// name.
const (
	atSymlinkNofollow = 0x100
	oPath             = 0x200000
)

// fstatat stats name in the directory open as dirfd, not following a
// symlink: through a descriptor opened with O_PATH|O_NOFOLLOW.
func fstatat(dirfd int, name string, st *syscall.Stat_t) error {
	fd, err := syscall.Openat(dirfd, name, oPath|syscall.O_NOFOLLOW|syscall.O_CLOEXEC, 0)
	if err != nil {
		return err
	}
	defer syscall.Close(fd)
	return syscall.Fstat(fd, st)
}

// readDirNames lists the directory open as dirfd through a duplicate of
// its descriptor.
func readDirNames(dirfd int, name string) ([]string, error) {
	dup, err := syscall.Dup(dirfd)
	if err != nil {
		return nil, err
	}
	f := os.NewFile(uintptr(dup), name)
	defer f.Close()
	names, err := f.Readdirnames(-1)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", name, err)
	}
	return names, nil
}
