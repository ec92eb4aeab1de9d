package reconcile

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/gallivant/gallivant/internal/leakcheck"
)

// TestMain fails the package's tests when a goroutine outlives them, and
// removes the rig's templates (rigtemplate_test.go) after them. The tests'
// git uses a template of one empty hooks directory and runs no automatic
// maintenance (gitTemplate).
func TestMain(m *testing.M) {
	tmpl, err := gitTemplate()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := leakcheck.Checked{M: m}.Run()
	removeTemplates()
	os.RemoveAll(tmpl)
	os.Exit(code)
}

// gitTemplate points GIT_TEMPLATE_DIR, for every git the tests run (the
// rig's, the stand-in's, the executor's, the agents'), at a template
// holding only an empty hooks directory, and returns its directory. git's
// default template adds a dozen inert sample hooks and a few more files to
// every repository and clone; each is an inode to create, and on a busy
// ext4 creating files is most of the package's time. The hooks directory
// stays: tests plant hooks there as agents and people do.
func gitTemplate() (string, error) {
	dir, err := os.MkdirTemp("", "reconcile-git-template-")
	if err != nil {
		return "", err
	}
	if err := os.Mkdir(filepath.Join(dir, "hooks"), 0o755); err != nil {
		return dir, err
	}
	if err := os.Setenv("GIT_TEMPLATE_DIR", dir); err != nil {
		return dir, err
	}
	// Nor does a commit or a fetch start git maintenance run --auto
	// (a process each, with never any work in a test's repositories).
	// gallivant's own git sets its configuration in its environment and
	// keeps its maintenance (internal/agent); this reaches the rest: the
	// rig's, the agents', the stand-in's plumbing.
	for k, v := range map[string]string{"GIT_CONFIG_COUNT": "1", "GIT_CONFIG_KEY_0": "maintenance.auto", "GIT_CONFIG_VALUE_0": "false"} {
		if err := os.Setenv(k, v); err != nil {
			return dir, err
		}
	}
	return dir, nil
}
