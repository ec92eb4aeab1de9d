package reconcile

import (
	"fmt"
	"os"
	"testing"

	"github.com/gallivant/gallivant/internal/leakcheck"
	"github.com/gallivant/gallivant/internal/testgit"
)

// TestMain fails the package's tests when a goroutine outlives them, and
// removes the rig's templates (rigtemplate_test.go) after them. The tests'
// git uses a template of one empty hooks directory and runs no automatic
// maintenance (internal/testgit).
func TestMain(m *testing.M) {
	_, cleanup, err := testgit.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	code := leakcheck.Checked{M: m}.Run()
	removeTemplates()
	cleanup()
	os.Exit(code)
}
