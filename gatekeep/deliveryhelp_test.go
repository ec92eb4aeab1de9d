package gatekeep

import (
	"testing"

	"github.com/gallivant/gallivant/ledger"
)

// mustCursor reads a cursor value or fails the test.
func mustCursor(t testing.TB, v string) ledger.Cursor {
	t.Helper()
	c, err := ledger.ParseCursor(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}
