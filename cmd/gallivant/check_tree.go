package main

import (
	"bytes"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// uncommitted lists the control documents under t that differ from the
// committed tree of t's git repository (modified, added, deleted or
// untracked), as paths relative to the working directory with their
// state. check reads working files but a pass reads only the control
// branch's commits, so these are the edits check has seen and reconcile has
// not. Outside a git repository, or without git, it returns nothing: there
// is no committed tree to differ from.
func uncommitted(t target) []string {
	top, err := gitOut(t.root, "rev-parse", "--show-toplevel")
	if err != nil {
		return nil
	}
	top = strings.TrimSpace(top)
	args := []string{"status", "--porcelain=v1", "-z", "--untracked-files=all", "--"}
	if len(t.only) == 0 {
		args = append(args, ".")
	} else {
		args = append(args, t.only...)
	}
	out, err := gitOut(t.root, args...)
	if err != nil {
		return nil
	}
	var list []string
	recs := strings.Split(out, "\x00")
	for i := 0; i < len(recs); i++ {
		r := recs[i]
		if len(r) < 4 {
			continue
		}
		xy, p := r[:2], r[3:]
		if xy[0] == 'R' || xy[0] == 'C' {
			i++ // the source path follows a rename
		}
		if !strings.HasSuffix(p, ".md") && filepath.Base(p) != specs.ConfigFile {
			continue
		}
		state := "modified"
		switch {
		case xy == "??":
			state = "untracked"
		case strings.Contains(xy, "D"):
			state = "deleted"
		case xy[0] == 'A' || xy[0] == 'R' || xy[0] == 'C':
			state = "added, not committed"
		}
		list = append(list, fmt.Sprintf("%s (%s)", relToCwd(filepath.Join(top, filepath.FromSlash(p))), state))
	}
	return list
}

// noteUncommitted tells, on standard error, which checked documents
// differ from the committed tree.
func (a *app) noteUncommitted(targets []target) {
	var all []string
	for _, t := range targets {
		all = append(all, uncommitted(t)...)
	}
	if len(all) == 0 {
		return
	}
	verb := "differ"
	if len(all) == 1 {
		verb = "differs"
	}
	if a.jsonLogs() {
		a.narrate(slog.LevelWarn, "", "uncommitted documents", "documents", all)
		return
	}
	fmt.Fprintf(a.io.Err, "check read the working files; %s %s from the committed tree, which is all reconcile reads (commit them to make them count):\n",
		plural(len(all), "document", "documents"), verb)
	for _, l := range all {
		fmt.Fprintf(a.io.Err, "  %s\n", l)
	}
}

// relToCwd shows p relative to the working directory when it lies under
// it, the way check shows diagnostics.
func relToCwd(p string) string {
	cwd, err := os.Getwd()
	if err != nil {
		return p
	}
	if rel, err := filepath.Rel(cwd, p); err == nil && !strings.HasPrefix(rel, "..") {
		return rel
	}
	return p
}

func gitOut(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	var out bytes.Buffer
	cmd.Stdout = &out
	err := cmd.Run()
	return out.String(), err
}
