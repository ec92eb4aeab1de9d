package ghstandin

import "github.com/google/go-github/v66/github"

// Client returns the real go-github client acting as login, the way a
// person or CI reaches this server: tests, the demo and scripts drive
// reviews, statuses and merges through it.
func (s *Server) Client(login string) *github.Client {
	c, err := github.NewClient(nil).WithAuthToken(s.Token(login)).WithEnterpriseURLs(s.APIURL(), s.APIURL())
	if err != nil {
		// APIURL is always a well-formed absolute URL.
		panic(err)
	}
	return c
}
