package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// learning: is off unless the key is there; on its own it learns from
// every target repository, and repos: limits it (docs/learning.md).
func TestLearningConfig(t *testing.T) {
	tests := []struct {
		name, src string
		want      *LearningConfig
		learns    map[string]bool
	}{
		{"absent", "defaults:\n  repo: acme/api\n", nil, map[string]bool{"acme/api": false}},
		{"on its own", "learning:\n", &LearningConfig{}, map[string]bool{"acme/api": true, "acme/web": true}},
		{"empty mapping", "learning: {}\n", &LearningConfig{}, map[string]bool{"acme/api": true}},
		{"limited", "learning:\n  control_repo: acme/control\n  repos: [acme/api]\n", &LearningConfig{ControlRepo: "acme/control", Repos: []string{"acme/api"}},
			map[string]bool{"acme/api": true, "ACME/API": true, "acme/web": false}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			cfg, ds := ParseConfig(ConfigFile, []byte(tt.src))
			if ds.HasErrors() {
				t.Fatal(ds)
			}
			if diff := cmp.Diff(tt.want, cfg.Learning); diff != "" {
				t.Errorf("Learning (-want +got):\n%s", diff)
			}
			for repo, want := range tt.learns {
				if got := cfg.Learns(repo); got != want {
					t.Errorf("Learns(%q) = %v, want %v", repo, got, want)
				}
			}
		})
	}
}
