package agent

// The CLI versions the presets are written against and tested with
// (docs/agents.md, scripts/agent-clis.sh): every flag a preset passes
// exists in these releases, which the realcli tests check against the
// CLIs' own --help.
const (
	// PinnedClaudeCode is @anthropic-ai/claude-code: 2.1.197 is the newest
	// 2.1.x whose package.json accepts Node 20 (2.1.198 and later need
	// Node 22).
	PinnedClaudeCode = "2.1.197"
	// PinnedCodex is @openai/codex (codex-cli), a native binary that any
	// Node from 16 installs.
	PinnedCodex = "0.171.0"
)
