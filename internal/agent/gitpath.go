package agent

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
)

var (
	gitOnce sync.Once
	gitBin  string
	gitErr  error
)

// gitPath is the git gallivant runs in its own repositories, resolved
// once per process from gallivant's PATH to an absolute path with no
// symlink in it, and checked: the binary, its exec path (where git finds
// git-remote-https) and every directory above them belong to root or to
// gallivant's own user and are writable by nobody else. A git found
// through a directory the agent can write would run as gallivant, with
// the token.
func gitPath() (string, error) {
	gitOnce.Do(func() {
		gitBin, gitErr = resolveGit()
	})
	return gitBin, gitErr
}

func resolveGit() (string, error) {
	p, err := exec.LookPath("git")
	if err != nil {
		return "", fmt.Errorf("find git: %w", err)
	}
	if p, err = filepath.Abs(p); err == nil {
		p, err = filepath.EvalSymlinks(p)
	}
	if err != nil {
		return "", fmt.Errorf("resolve git: %w", err)
	}
	if err := trustedPath(p); err != nil {
		return "", err
	}
	cmd := exec.Command(p, "--exec-path")
	cmd.Env = []string{"PATH=/usr/bin:/bin"}
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("%s --exec-path: %w", p, err)
	}
	if ep := strings.TrimSpace(string(out)); ep != "" {
		if ep, err = filepath.EvalSymlinks(ep); err != nil {
			return "", fmt.Errorf("resolve git's exec path: %w", err)
		}
		if err := trustedPath(ep); err != nil {
			return "", err
		}
	}
	return p, nil
}

// trustedPath checks p and every directory above it: owned by root or by
// this process's user, not writable by group or others.
func trustedPath(p string) error {
	euid := os.Geteuid()
	for q := p; ; q = filepath.Dir(q) {
		if err := trustedFile(q, euid); err != nil {
			return fmt.Errorf("gallivant's git %s is not safe to run: %w; install git where only root (or gallivant's user) can write", p, err)
		}
		if q == filepath.Dir(q) {
			return nil
		}
	}
}

func trustedFile(p string, euid int) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return err
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fmt.Errorf("%s: no owner to check", p)
	}
	if st.Uid != 0 && int(st.Uid) != euid {
		return fmt.Errorf("%s belongs to uid %d", p, st.Uid)
	}
	if fi.Mode().Perm()&0o022 != 0 && !(fi.IsDir() && fi.Mode()&os.ModeSticky != 0 && st.Uid == 0) {
		return fmt.Errorf("%s is writable by group or others (mode %s)", p, fi.Mode().Perm())
	}
	return nil
}
