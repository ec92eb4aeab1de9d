package reconcile

import (
	"fmt"

	"github.com/gallivant/gallivant/reconcile/githubapi"
)

// githubBaseMerge reports whether the head a comparison from the recorded
// head old reaches is GitHub's update-branch merge: a merge commit whose
// first parent is old, with the subject GitHub writes, "Merge branch
// '<base>' into <head>". GitHub runs update-branch in the background, so
// the merge gallivant asked for usually lands after its answer and is
// first seen on a later pass; it is gallivant's own base merge, not a push
// the loop did not make.
func githubBaseMerge(cmp githubapi.Comparison, old, baseRef, headRef string) bool {
	if cmp.Status != githubapi.CompareAhead || len(cmp.Commits) == 0 {
		return false
	}
	last := cmp.Commits[len(cmp.Commits)-1]
	return len(last.Parents) == 2 && last.Parents[0] == old &&
		last.Subject == fmt.Sprintf("Merge branch '%s' into %s", baseRef, headRef)
}
