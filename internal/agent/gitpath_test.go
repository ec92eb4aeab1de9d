package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Issue 29, finding 1 (gallivant's own git): a git found where the agent
// could write, or owned by another user, is refused before it runs; the
// git on this machine's PATH resolves to an absolute path without
// symlinks.
func TestTrustedPath(t *testing.T) {
	git, err := gitPath()
	if err != nil {
		t.Fatalf("gitPath: %v", err)
	}
	if !filepath.IsAbs(git) {
		t.Errorf("gitPath %q is not absolute", git)
	}
	base := t.TempDir()
	open := filepath.Join(base, "open")
	if err := os.MkdirAll(open, 0o755); err != nil {
		t.Fatal(err)
	}
	os.Chmod(open, 0o777)
	bin := filepath.Join(open, "git")
	if err := os.WriteFile(bin, []byte("#!/bin/sh\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := trustedPath(bin); err == nil || !strings.Contains(err.Error(), "writable by group or others") {
		t.Errorf("trustedPath of a git in a world-writable directory: %v, want refused", err)
	}
	if os.Geteuid() == 0 {
		os.Chmod(open, 0o755)
		os.Chown(bin, 65534, 65534)
		if err := trustedPath(bin); err == nil || !strings.Contains(err.Error(), "belongs to uid 65534") {
			t.Errorf("trustedPath of a git another user owns: %v, want refused", err)
		}
	}
}
