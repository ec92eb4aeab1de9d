package gitopen

import (
	"testing"

	"github.com/gallivant/gallivant/internal/leakcheck"
)

// TestMain fails the package's tests when a goroutine outlives them.
func TestMain(m *testing.M) { leakcheck.Main(m) }
