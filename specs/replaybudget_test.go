package specs

import (
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// executor.replay_budget is read as a positive Go duration, defaults to
// DefaultReplayBudget, and is refused at its position otherwise.
func TestConfigReplayBudget(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		src   string
		want  time.Duration
		diags []diagAt
	}{
		{"default", "defaults:\n  repo: acme/api\n", DefaultReplayBudget, nil},
		{"set", "executor:\n  replay_budget: 2m\n", 2 * time.Minute, nil},
		{"zero", "executor:\n  replay_budget: 0s\n", DefaultReplayBudget, []diagAt{{"config/invalid", 2, 18}}},
		{"a word", "executor:\n  replay_budget: soon\n", DefaultReplayBudget, []diagAt{{"config/invalid", 2, 18}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, ds := ParseConfig(ConfigFile, []byte(tt.src))
			if diff := cmp.Diff(tt.diags, diagsAt(ds)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nall: %v", diff, ds)
			}
			if cfg.Executor.ReplayBudget != tt.want {
				t.Errorf("ReplayBudget = %s, want %s", cfg.Executor.ReplayBudget, tt.want)
			}
		})
	}
}
