package agent

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The pinned versions are the same in the code, the install script and
// the docs: a bump changes all three or this fails.
func TestPinnedVersionsAgree(t *testing.T) {
	root := filepath.Join("..", "..")
	for _, tc := range []struct{ file, want string }{
		{"scripts/agent-clis.sh", "claude_version=" + PinnedClaudeCode + "\n"},
		{"scripts/agent-clis.sh", "codex_version=" + PinnedCodex + "\n"},
		{"docs/agents.md", "`@anthropic-ai/claude-code@" + PinnedClaudeCode + "`"},
		{"docs/agents.md", "`@openai/codex@" + PinnedCodex + "`"},
		// The container image runs as a non-root user, with a Node that
		// installs current CLIs (Alpine 3.22's nodejs is 22).
		{"Dockerfile", "FROM alpine:3.22\n"},
		{"Dockerfile", " nodejs npm "},
		{"Dockerfile", "\nUSER 10001:10001\n"},
	} {
		b, err := os.ReadFile(filepath.Join(root, tc.file))
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), tc.want) {
			t.Errorf("%s does not pin %q", tc.file, tc.want)
		}
	}
}
