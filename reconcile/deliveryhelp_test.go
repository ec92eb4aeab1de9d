package reconcile

import (
	"strings"

	"github.com/gallivant/gallivant/ledger"
)

// lineValue is the value of the delivery line with key as the ledger
// writes it; "" when there is none.
func lineValue(d *ledger.Delivery, key string) string {
	for _, ln := range d.Lines() {
		if k, v, _ := strings.Cut(ln, ": "); k == key {
			return v
		}
	}
	return ""
}
