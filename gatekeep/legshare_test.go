package gatekeep

import (
	"testing"

	"github.com/google/go-cmp/cmp"

	"github.com/gallivant/gallivant/specs"
)

// Two legs in one repository share one work branch; the first pair found,
// in membership order, is named.
func TestSharedRepo(t *testing.T) {
	t.Parallel()
	type got struct {
		First, Second, Repo string
		Shared              bool
	}
	tests := []struct {
		name    string
		home    string
		legs    map[string]string
		members []string
		want    got
	}{
		{"own repositories", "acme/app", map[string]string{"api": "acme/api", "web": "acme/web"}, []string{"home", "api", "web"}, got{}},
		{"leg in home's repository", "acme/app", map[string]string{"api": "acme/app"}, []string{"home", "api"}, got{"home", "api", "acme/app", true}},
		{"case differs", "acme/app", map[string]string{"api": "acme/api", "web": "Acme/API"}, []string{"home", "api", "web"}, got{"api", "web", "Acme/API", true}},
		{"shared pair not delivering", "acme/app", map[string]string{"api": "acme/api", "web": "acme/api"}, []string{"home", "api"}, got{}},
	}
	for _, tt := range tests {
		s := &specs.Spec{Repo: tt.home}
		for _, m := range []string{"api", "web"} {
			if r, ok := tt.legs[m]; ok {
				s.Legs = append(s.Legs, specs.Leg{Name: m, Repo: r})
			}
		}
		var g got
		g.First, g.Second, g.Repo, g.Shared = SharedRepo(s, tt.members)
		if diff := cmp.Diff(tt.want, g); diff != "" {
			t.Errorf("SharedRepo(%s) (-want +got):\n%s", tt.name, diff)
		}
	}
}
