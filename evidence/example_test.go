package evidence_test

import (
	"fmt"

	"github.com/gallivant/gallivant/evidence"
)

// Read judges what an evidence command's output says it selected: a test
// runner that ran no test proves nothing, whatever its exit status.
func ExampleRead() {
	for _, run := range []struct{ cmd, out string }{
		{"go test ./internal/ratelimit -run TestOverLimit -v", "=== RUN   TestOverLimit\n--- PASS: TestOverLimit (0.00s)\nPASS\nok  \texample.com/internal/ratelimit\t0.41s\n"},
		{"go test ./internal/ratelimit -run TestOverLimt", "ok  \texample.com/internal/ratelimit\t0.01s [no tests to run]\n"},
		{"test -f docs/limits.md", ""},
	} {
		s := evidence.Read(run.cmd, run.out)
		fmt.Printf("%q nothing=%v %s\n", s.Runner, s.Nothing(), s)
	}
	// Output:
	// "go test" nothing=false 1 test
	// "go test" nothing=true 0 tests
	// "" nothing=false assertion
}
