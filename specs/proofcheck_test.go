package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

// executor.proof_check is read as a check name, empty by default, and an
// empty value is refused at its position.
func TestConfigProofCheck(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		src   string
		want  string
		diags []diagAt
	}{
		{"default", "executor:\n  kind: none\n", "", nil},
		{"set", "executor:\n  kind: none\n  proof_check: gallivant-proof\n", "gallivant-proof", nil},
		{"empty", "executor:\n  kind: none\n  proof_check: \"\"\n", "", []diagAt{{"config/invalid", 3, 16}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			t.Parallel()
			cfg, ds := ParseConfig(ConfigFile, []byte(tt.src))
			if diff := cmp.Diff(tt.diags, diagsAt(ds)); diff != "" {
				t.Errorf("diagnostics (-want +got):\n%s\nall: %v", diff, ds)
			}
			if cfg.Executor.ProofCheck != tt.want {
				t.Errorf("ProofCheck = %q, want %q", cfg.Executor.ProofCheck, tt.want)
			}
		})
	}
}
