package agent

import (
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The agent and a preset's CLI are looked up on the agent's PATH
// (executor.env), never in a relative entry: for an agent, the current
// directory is its checkout, and what it wrote there is not the CLI.
func TestAgentIsLookedUpOnItsOwnPath(t *testing.T) {
	t.Parallel()
	bin, rel := t.TempDir(), t.TempDir()
	for _, d := range []string{bin, rel} {
		if err := os.WriteFile(filepath.Join(d, "tool"), []byte("#!/bin/sh\n"), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	wd, err := os.Getwd()
	if err != nil {
		t.Fatal(err)
	}
	relDir, err := filepath.Rel(wd, rel)
	if err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		path, want string
	}{
		{bin, filepath.Join(bin, "tool")},
		{relDir + ":" + bin, filepath.Join(bin, "tool")},
		{":.:" + bin, filepath.Join(bin, "tool")},
		{relDir, ""},
		{"", ""},
	}
	for _, tc := range tests {
		got, err := lookPath("tool", []string{"HOME=/nowhere", "PATH=" + tc.path})
		if got != tc.want || (tc.want == "") != errors.Is(err, exec.ErrNotFound) {
			t.Errorf("lookPath on PATH=%q = %q, %v; want %q", tc.path, got, err, tc.want)
		}
	}
	cmd := agentCommand(t.Context(), t.TempDir(), []string{"PATH=" + bin}, nil, nil, "tool")
	if cmd.Path != filepath.Join(bin, "tool") {
		t.Errorf("the agent's command runs %q, want the one on its own PATH %q", cmd.Path, filepath.Join(bin, "tool"))
	}
}
