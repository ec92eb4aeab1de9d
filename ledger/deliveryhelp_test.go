package ledger

import (
	"strings"
	"testing"
)

// mustCursor reads a cursor value or fails the test.
func mustCursor(t testing.TB, v string) Cursor {
	t.Helper()
	c, err := ParseCursor(v)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// lineValue is the value of the delivery line with key as Format writes
// it; "" when there is none.
func lineValue(d *Delivery, key string) string {
	for _, ln := range d.Lines() {
		if k, v, _ := strings.Cut(ln, ": "); k == key {
			return v
		}
	}
	return ""
}
