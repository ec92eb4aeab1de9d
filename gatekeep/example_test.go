package gatekeep_test

import (
	"fmt"

	"github.com/gallivant/gallivant/gatekeep"
)

// ParsePR reads the ways a person names a pull request.
func ExampleParsePR() {
	for _, s := range []string{"acme/api#12", "#12", "https://github.com/acme/api/pull/12", "acme/api"} {
		pr, err := gatekeep.ParsePR(s, "acme/api")
		if err != nil {
			fmt.Println(s, "is refused")
			continue
		}
		fmt.Println(pr)
	}
	// Output:
	// acme/api#12
	// acme/api#12
	// acme/api#12
	// acme/api is refused
}

// Judge weighs what GitHub says about one pull request: here the required
// check has not finished on the head, so the pull request waits; once it
// fails, the failure is a finding a fix round answers.
func ExampleJudge() {
	mergeable := true
	d := gatekeep.Digest{Repo: "acme/api", Number: 12, State: gatekeep.PROpen, HeadRef: "gallivant/rate-limiter", HeadSHA: "9b1c0d2e3f40",
		BaseRef: "main", Mergeable: &mergeable, MergeState: gatekeep.MergeBlocked, FilesKnown: true, ReviewsKnown: true, ChecksKnown: true,
		Checks:   []gatekeep.Check{{Name: "ci", Kind: "check_run", Status: gatekeep.CheckInProgress, Required: true}},
		Required: []string{"ci"}}
	v := gatekeep.Judge(d, gatekeep.Input{Self: "gallivant-bot"})
	fmt.Println(v.Kind)
	fmt.Println(v.Line())

	d.Checks[0] = gatekeep.Check{Name: "ci", Kind: "check_run", Status: gatekeep.CheckCompleted, Conclusion: gatekeep.ConclusionFailure, Required: true}
	v = gatekeep.Judge(d, gatekeep.Input{Self: "gallivant-bot"})
	fmt.Println(v.Kind)
	fmt.Println(v.Line())
	// Output:
	// waiting
	// waiting - check ci on 9b1c0d2
	// fixable
	// fixable - 1 finding
}
