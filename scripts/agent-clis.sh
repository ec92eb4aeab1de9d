#!/usr/bin/env bash
# Installs the agent CLIs the real-CLI tests drive (internal/agent/realcli),
# at the versions docs/agents.md pins, into a cache directory:
#
#   scripts/agent-clis.sh [DIR]     (default: $GALLIVANT_AGENT_CLIS, else
#                                    ${XDG_CACHE_HOME:-$HOME/.cache}/gallivant/agent-clis)
#
# It prints DIR/node_modules/.bin, the directory to put on PATH (the tests
# read GALLIVANT_AGENT_CLIS and look there). Claude Code 2.1.197 is the newest
# 2.1.x whose package.json accepts Node 20 (2.1.198 and later need Node 22);
# codex-cli 0.171.0 ships a static binary and accepts Node 16 and later.
# npm unreachable is not an error: the script says so and the tests skip.
set -euo pipefail

claude_version=2.1.197
codex_version=0.171.0

dir=${1:-${GALLIVANT_AGENT_CLIS:-${XDG_CACHE_HOME:-$HOME/.cache}/gallivant/agent-clis}}
mkdir -p "$dir"
bin="$dir/node_modules/.bin"

have() {
	[ -x "$bin/claude" ] && [ -x "$bin/codex" ] &&
		"$bin/claude" --version 2>/dev/null | grep -q "^$claude_version " &&
		"$bin/codex" --version 2>/dev/null | grep -q " $codex_version\$"
}

if ! have; then
	if ! command -v npm >/dev/null; then
		echo "agent-clis: npm is not installed; the real-CLI tests will skip" >&2
		exit 0
	fi
	if ! (cd "$dir" && npm install --no-audit --no-fund --no-save --loglevel=error \
		"@anthropic-ai/claude-code@$claude_version" "@openai/codex@$codex_version" >&2); then
		echo "agent-clis: npm could not install the CLIs (registry unreachable?); the real-CLI tests will skip" >&2
		exit 0
	fi
fi
echo "$bin"
