package gatekeep

import (
	"strings"

	"github.com/gallivant/gallivant/specs"
)

// SharedRepo finds two members of a coordinated spec delivered in one
// repository (compared without case): one work branch cannot carry two
// pull requests, so coordinated delivery needs each leg in its own
// repository. first and second are the members in membership order.
func SharedRepo(s *specs.Spec, members []string) (first, second, repo string, shared bool) {
	seen := map[string]string{}
	for _, m := range members {
		r, _ := s.MemberRepo(m)
		if other, ok := seen[strings.ToLower(r)]; ok {
			return other, m, r, true
		}
		seen[strings.ToLower(r)] = m
	}
	return "", "", "", false
}
