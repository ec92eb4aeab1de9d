//go:build !linux

package agent

import (
	"io/fs"
	"os"
	"path/filepath"
)

// chownTree gives a tree to the agent's user, never following symlinks.
// Without Linux's descriptor-relative walk it goes by path, which is safe
// only while no process of the agent's runs (docs/security.md).
func chownTree(root string, uid, gid int) error {
	return filepath.WalkDir(root, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, uid, gid)
	})
}
