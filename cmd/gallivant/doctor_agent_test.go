package main

import (
	"testing"

	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

// TestAgentProgram pins which program doctor probes for each executor,
// its sign-in status command, and which variables count as its API key.
func TestAgentProgram(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		kind    string
		command []string
		program string
		status  []string
		known   bool
	}{
		{specs.ExecutorClaudeCode, nil, "claude", []string{"auth", "status"}, true},
		{specs.ExecutorCodex, nil, "codex", []string{"login", "status"}, true},
		{specs.ExecutorAider, nil, "aider", nil, true},
		{specs.ExecutorCommand, []string{"./agent.sh", "--fast"}, "./agent.sh", nil, true},
		{specs.ExecutorCommand, nil, "", nil, true},
		{specs.ExecutorWorkflow, nil, "", nil, false},
	} {
		program, status, known := agentProgram(tc.kind, tc.command)
		if diff := cmp.Diff([]any{tc.program, tc.status, tc.known}, []any{program, status, known}); diff != "" {
			t.Errorf("agentProgram(%q, %q) (-want +got):\n%s", tc.kind, tc.command, diff)
		}
	}
	for _, tc := range []struct {
		kind, key string
		want      bool
	}{
		{specs.ExecutorClaudeCode, "ANTHROPIC_API_KEY", true},
		{specs.ExecutorClaudeCode, "OPENAI_API_KEY", false},
		{specs.ExecutorCodex, "OPENAI_API_KEY", true},
		{specs.ExecutorCodex, "CODEX_API_KEY", true},
		{specs.ExecutorAider, "DEEPSEEK_API_KEY", true},
		{specs.ExecutorAider, "API_KEY_FILE", false},
		{specs.ExecutorCommand, "ANTHROPIC_API_KEY", false},
	} {
		if got := apiKeyVar(tc.kind, tc.key); got != tc.want {
			t.Errorf("apiKeyVar(%q, %q) = %t; want %t", tc.kind, tc.key, got, tc.want)
		}
	}
}
