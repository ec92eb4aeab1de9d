package audit_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/gallivant/gallivant/audit"
)

// A Verifier judges a control branch's history commit by commit, oldest
// first: a person may add a request to a ledger's `## Requests`, but not
// flip a row's status.
func ExampleVerifier() {
	before, err := os.ReadFile("../docs/examples/control/plans/rate-limiter-ledger.md")
	if err != nil {
		panic(err)
	}
	const path = "plans/rate-limiter-ledger.md"
	request := []byte(string(before) + "- retry row 1 | the fixture is fixed\n")
	forged := []byte(strings.Replace(string(request), "| 1 | failed | 1 |", "| 1 | done | 1 |", 1))

	v := audit.NewVerifier()
	for _, c := range []audit.Commit{
		{SHA: "1111111", Author: "Ada <ada@example.com>", Message: "ask for a retry",
			Ledgers: []audit.Change{{Path: path, Before: before, After: request}}},
		{SHA: "2222222", Author: "Mallory <m@example.com>", Message: "row 1 is fine",
			Ledgers: []audit.Change{{Path: path, Before: request, After: forged}}},
	} {
		for _, r := range v.Add(c) {
			fmt.Println(c.SHA, r.Kind, len(r.Violations))
		}
	}
	rep := v.Report()
	fmt.Println(rep.Legal(), rep.Violations[0].Section)
	// Output:
	// 1111111 person 0
	// 2222222 person 1
	// false rows
}
