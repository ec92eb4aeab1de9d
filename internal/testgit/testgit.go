// Package testgit makes the git a test binary runs cheap to start: a
// template of one empty hooks directory and no automatic maintenance.
//
// It is for test code only: a package's TestMain calls Setup before its
// tests. git's default template adds a dozen inert sample hooks and a few
// more files to every repository and clone, and each commit or fetch starts
// `git maintenance run --auto`, which never finds work in a test's small
// repositories; on a busy two-core machine creating files and processes is
// most of an integration test's time. The hooks directory stays: tests
// plant hooks there as agents and people do. gallivant's own git sets its
// configuration in its environment (internal/agent) and is not reached by
// the maintenance setting.
package testgit

import (
	"os"
	"path/filepath"
)

// marker names the template of an enclosing test binary, so that the same
// binary run again as a command (testscript) reuses it instead of making
// one it would never remove.
const marker = "GALLIVANT_TESTGIT_TEMPLATE"

// Setup creates the template, points this process's git at it and turns
// automatic maintenance off (GIT_TEMPLATE_DIR, GIT_CONFIG_COUNT/KEY/VALUE
// in the process environment, which the tests' commands inherit). It
// returns the same variables as KEY=VALUE entries, for environments built
// from scratch (a testscript's), and a cleanup that removes the template.
func Setup() (env []string, cleanup func(), err error) {
	dir, owned := os.Getenv(marker), false
	if fi, err := os.Stat(filepath.Join(dir, "hooks")); dir == "" || err != nil || !fi.IsDir() {
		if dir, err = os.MkdirTemp("", "gallivant-git-template-"); err != nil {
			return nil, func() {}, err
		}
		owned = true
		if err := os.Mkdir(filepath.Join(dir, "hooks"), 0o755); err != nil {
			os.RemoveAll(dir)
			return nil, func() {}, err
		}
	}
	cleanup = func() {}
	if owned {
		cleanup = func() { os.RemoveAll(dir) }
	}
	env = []string{marker + "=" + dir, "GIT_TEMPLATE_DIR=" + dir,
		"GIT_CONFIG_COUNT=1", "GIT_CONFIG_KEY_0=maintenance.auto", "GIT_CONFIG_VALUE_0=false"}
	for _, kv := range env {
		for i := range kv {
			if kv[i] == '=' {
				if err := os.Setenv(kv[:i], kv[i+1:]); err != nil {
					cleanup()
					return nil, func() {}, err
				}
				break
			}
		}
	}
	return env, cleanup, nil
}
