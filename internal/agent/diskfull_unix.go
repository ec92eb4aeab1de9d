//go:build unix

package agent

import (
	"path/filepath"
	"syscall"
)

// fileSystemFull reports whether the file system holding path (or its
// nearest existing parent) has no block left for an unprivileged writer,
// or no inode: what git reports only in the words of its messages
// ("No space left on device"), asked of the kernel instead, so that no
// text an agent can shape decides it.
func fileSystemFull(path string) (string, bool) {
	for p := filepath.Clean(path); ; p = filepath.Dir(p) {
		var st syscall.Statfs_t
		if err := syscall.Statfs(p, &st); err == nil {
			return p, st.Bavail == 0 || (st.Files > 0 && st.Ffree == 0)
		}
		if p == filepath.Dir(p) {
			return "", false
		}
	}
}
