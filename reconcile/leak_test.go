package reconcile

import (
	"os"
	"testing"

	"github.com/gallivant/gallivant/internal/leakcheck"
)

// TestMain fails the package's tests when a goroutine outlives them, and
// removes the rig's templates (rigtemplate_test.go) after them.
func TestMain(m *testing.M) {
	code := leakcheck.Checked{M: m}.Run()
	removeTemplates()
	os.Exit(code)
}
