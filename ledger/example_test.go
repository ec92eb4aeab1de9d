package ledger_test

import (
	"fmt"
	"os"

	"github.com/gallivant/gallivant/ledger"
)

// A ledger is parsed from its markdown and formatted back byte for byte;
// its rows, their status and the outstanding dispatch are typed values.
func ExampleParse() {
	src, err := os.ReadFile("../docs/examples/control/plans/rate-limiter-ledger.md")
	if err != nil {
		panic(err)
	}
	l, diags := ledger.Parse("plans/rate-limiter-ledger.md", src)
	fmt.Println(len(diags), len(l.Rows), l.Rows[0].Status, l.Rows[1].Status)
	fmt.Println(string(ledger.Format(l)) == string(src))
	// Output:
	// 0 4 failed done
	// true
}
