package reconcile

import (
	"flag"
	"fmt"
	"os"
	"runtime"
	"strconv"
	"testing"

	"github.com/gallivant/gallivant/internal/leakcheck"
	"github.com/gallivant/gallivant/internal/testgit"
)

// TestMain fails the package's tests when a goroutine outlives them, and
// removes the rig's templates (rigtemplate_test.go) after them. The tests'
// git uses a template of one empty hooks directory and runs no automatic
// maintenance (internal/testgit).
//
// Twice as many tests run at once as there are CPUs, unless -parallel is
// given: a test here spends most of its time waiting for git, an agent's
// process or the stand-in, and with one test per CPU (go test's default)
// a sixth of the CPUs' time went idle.
func TestMain(m *testing.M) {
	flag.Parse()
	parallelSet := false
	flag.Visit(func(f *flag.Flag) { parallelSet = parallelSet || f.Name == "test.parallel" })
	if !parallelSet {
		_ = flag.Set("test.parallel", strconv.Itoa(2*runtime.GOMAXPROCS(0)))
	}
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
