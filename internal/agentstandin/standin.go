// Package standin writes stand-ins for the agent CLIs gallivant's presets
// run (claude, codex, aider) for tests, where the real CLIs are not
// installed. Each is a shell script that parses its command line the way
// the real CLI does — refusing an unknown flag or a missing prompt —
// records the call, makes a change in the checkout the way the brief asks,
// writes $GALLIVANT_RESULT (or gives the result as its final message) and
// prints usage in the CLI's own format. The claude stand-in refuses
// bypassPermissions as root without IS_SANDBOX=1, as the real one does. It is
// not part of gallivant's library surface.
package agentstandin

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The files a test places next to the stand-ins to steer them.
const (
	// FailWithoutModel makes a row fail unless a model was passed, so an
	// escalated attempt is the one that succeeds.
	FailWithoutModel = "fail-without-model"
	// Result holds a result file the stand-in writes verbatim instead of
	// its own (a malformed one, say).
	Result = "result"
	// CommitFirst makes the stand-in commit its change with a message of
	// its own ("wip") before it writes the result.
	CommitFirst = "commit-first"
	// Sleep holds seconds the stand-in sleeps before it works.
	Sleep = "sleep"
	// Final holds a JSON string literal (json.Marshal of the text): the
	// stand-in writes no result file and gives this as its final message
	// (claude's result field, codex's last agent message), as the real
	// CLIs do.
	Final = "final"
	// Fail holds a JSON string literal: the stand-in fails the way the
	// real CLI reports a 401 (claude: is_error with api_error_status 401
	// and this result; codex: turn.failed with this message) and exits 1.
	Fail = "fail"
	// Calls is the log of calls: one line per run, "<cli> <args…> |
	// target=<t> model=<m> prompt=<bytes>".
	Calls = "calls.log"
	// LoggedOut makes `claude auth status` report no credential (exit 1),
	// as the real CLI does without a key or a login.
	LoggedOut = "logged-out"
	// LearnNone makes a learn task change nothing and answer status: none.
	LearnNone = "learn-none"
	// LastLearnPrompt holds the prompt of the last learn task the
	// stand-in answered (a learn task adds one lesson citing the first
	// feedback URL its brief lists, or answers none when it lists none).
	LastLearnPrompt = "last-learn-prompt"
	// Preflights is the log of the cheap checks (`--version`, `claude
	// auth status`): one line per call, "<cli> <args…>".
	Preflights = "preflight.log"
)

// preflight answers `--version` (and, for claude, `auth status`) the way
// the real CLI does, logging the call to preflight.log; $cli names the
// CLI and $version its version line.
const preflight = `
case "$1" in
  --version|-V)
    echo "$cli --version" >> "$(dirname "$0")/preflight.log"
    echo "$version"; exit 0 ;;
esac
if [ "$cli" = claude ] && [ "$1" = auth ]; then
  echo "$cli $*" >> "$(dirname "$0")/preflight.log"
  [ "$2" = status ] || { echo "error: unknown command 'auth $2'" >&2; exit 2; }
  if [ -f "$(dirname "$0")/logged-out" ]; then echo '{"loggedIn": false}'; exit 1; fi
  echo '{"loggedIn": true, "authMethod": "api_key", "apiProvider": "firstParty"}'; exit 0
fi
`

// work is the part every stand-in shares once it has the prompt in
// $prompt, the model in $model and its name in $cli.
const work = `
here=$(dirname "$0")
[ -n "$prompt" ] || { echo "$cli: no prompt" >&2; exit 1; }
[ -n "$GALLIVANT_RESULT" ] || { echo "$cli: GALLIVANT_RESULT is not set" >&2; exit 1; }
target=$(printf '%s\n' "$prompt" | sed -n 's/^target: //p' | head -n 1)
round=$(printf '%s\n' "$prompt" | sed -n 's/^round: //p' | head -n 1)
printf '%s | target=%s model=%s prompt=%s\n' "$cli $*" "$target" "$model" "$(printf '%s' "$prompt" | wc -c | tr -d ' ')" >> "$here/calls.log"
if [ -f "$here/sleep" ]; then sleep "$(cat "$here/sleep")"; fi
task=$(printf '%s\n' "$prompt" | sed -n 's/^task: \([^ |]*\) | attempt [0-9]* | [0-9a-f]*$/\1/p' | head -n 1)
if [ -n "$task" ]; then
  # A wave's task: write the first file the brief's Files list names.
  file=$(printf '%s\n' "$prompt" | sed -n 's/^\(Create\|Modify\): //p' | head -n 1)
  [ -n "$file" ] || file="tasks/$task.txt"
  mkdir -p "$(dirname "$file")" && echo "task $task" > "$file"
  printf 'status: done\ndecision: wrote %s | take the next task\n' "$file" > "$GALLIVANT_RESULT"
elif [ "$target" = learn ]; then
  # A learn task: add one lesson citing the first feedback URL the brief
  # quotes, or answer none when it quotes none.
  printf '%s\n' "$prompt" > "$here/last-learn-prompt"
  file=$(printf '%s\n' "$prompt" | sed -n 's/^lessons: //p' | head -n 1)
  repo=$(printf '%s\n' "$prompt" | sed -n 's/^repo: //p' | head -n 1)
  url=$(printf '%s\n' "$prompt" | sed -n 's/^- \(https:[^ ]*\) by @.*/\1/p' | head -n 1)
  if [ -z "$url" ] || [ -f "$here/learn-none" ]; then
    printf 'status: none\ndecision: nothing generalises beyond this change | nothing to propose\n' > "$GALLIVANT_RESULT"
  else
    mkdir -p "$(dirname "$file")"
    [ -s "$file" ] || printf '# Lessons for %s\n' "$repo" > "$file"
    printf '\n## Answer every review comment\nsources: %s\n\nAnswer every review comment before asking for another review.\n' "$url" >> "$file"
    printf 'status: done\ndecision: added a lesson citing %s | a person reviews the proposal\n' "$url" > "$GALLIVANT_RESULT"
  fi
elif [ -n "$round" ] || [ -z "$target" ]; then
  mkdir -p fixes && echo "fix" > "fixes/round-$round.txt"
  exit 0
elif [ "$target" = seed ]; then
  rows=$(printf '%s\n' "$prompt" | sed -n 's/^- row \([0-9][0-9]*\):.*/\1/p')
  : > "$GALLIVANT_RESULT"
  n=0; first=none
  for r in $rows; do
    echo "row $r: open | test -f rows/row-$r.txt; FAIL: missing" >> "$GALLIVANT_RESULT"
    n=$((n+1)); [ "$first" = none ] && first="row $r"
  done
  echo "decision: seeded $n rows, closed 0 on baseline | $first" >> "$GALLIVANT_RESULT"
else
  mkdir -p rows && echo "row $target" > "rows/row-$target.txt"
  if [ -f "$here/commit-first" ]; then
    git add -A && git -c user.name=standin -c user.email=s@example.com commit --quiet -m wip
  fi
  if [ -f "$here/fail-without-model" ] && [ -z "$model" ]; then
    printf 'status: failed\nevidence: test -f rows/row-%s.txt; FAIL: too hard\ndecision: could not finish | try a bigger model\n' "$target" > "$GALLIVANT_RESULT"
  else
    printf 'status: done\nevidence: test -f rows/row-%s.txt; ok\ndecision: row file written | take the next row\n' "$target" > "$GALLIVANT_RESULT"
  fi
fi
if [ -f "$here/result" ]; then cat "$here/result" > "$GALLIVANT_RESULT"; fi
if [ -f "$here/final" ]; then : > "$GALLIVANT_RESULT"; final=$(cat "$here/final"); else final='"done"'; fi
`

// claude parses `claude -p [--output-format f] [--permission-mode m]
// [--model m] [--max-budget-usd amount] [--resume id]` with the prompt on
// standard input.
const claude = `#!/bin/sh
cli=claude; version="2.1.197 (Claude Code)"
` + preflight + `
print=0; format=text; model=; mode=default
args="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    -p|--print) print=1 ;;
    --output-format) shift; format=$1 ;;
    --permission-mode) shift; mode=$1 ;;
    --model) shift; model=$1 ;;
    --max-budget-usd) shift
      case "$1" in ""|-*|*[!0-9.]*) echo "error: --max-budget-usd needs an amount" >&2; exit 2 ;; esac ;;
    --resume|-r) shift ;;
    -*) echo "error: unknown option '$1'" >&2; exit 2 ;;
    *) echo "claude stand-in: a prompt argument was given; gallivant sends it on stdin" >&2; exit 2 ;;
  esac
  shift
done
set -- $args
[ "$print" = 1 ] || { echo "claude: not in --print mode; it would wait for a person" >&2; exit 2; }
if [ "$mode" = bypassPermissions ] && [ "$(id -u)" = 0 ] && [ "$IS_SANDBOX" != 1 ]; then
  echo "--dangerously-skip-permissions cannot be used with root/sudo privileges for security reasons" >&2; exit 1
fi
if [ -f "$(dirname "$0")/fail" ]; then
  printf '%s\n' '{"type":"result","subtype":"success","is_error":true,"api_error_status":401,"result":'"$(cat "$(dirname "$0")/fail")"',"session_id":"claude-session-1","total_cost_usd":0,"usage":{"input_tokens":0,"output_tokens":0}}'
  exit 1
fi
case "$format" in text|json|stream-json) ;; *) echo "error: invalid --output-format $format" >&2; exit 2 ;; esac
case "$mode" in default|acceptEdits|bypassPermissions|plan) ;; *) echo "error: invalid --permission-mode $mode" >&2; exit 2 ;; esac
prompt=$(cat)
` + work + `
printf '%s\n' '{"type":"result","subtype":"success","is_error":false,"result":'"$final"',"session_id":"claude-session-1","total_cost_usd":0.0123,"usage":{"input_tokens":1000,"output_tokens":200,"cache_creation_input_tokens":0,"cache_read_input_tokens":34}}'
`

// codex parses `codex exec [--json] [--sandbox s] [--model m] [-]` and
// `codex exec resume <id> [--json] [-c key=value]… [-]`, whose only
// options are -c overrides and --json; `-` reads the prompt from standard
// input.
const codex = `#!/bin/sh
cli=codex; version="codex-cli 0.171.0"
` + preflight + `
model=; json=0; sandbox=read-only; prompt=; resume=
args="$*"
[ "$1" = exec ] || { echo "codex stand-in: only exec is non-interactive" >&2; exit 2; }
shift
if [ "$1" = resume ]; then
  shift; resume=$1; shift
  case "$resume" in ""|-*) echo "error: a session id is required" >&2; exit 2 ;; esac
fi
while [ $# -gt 0 ]; do
  case "$1" in
    --json) json=1 ;;
    -c|--config) shift
      case "$1" in
        sandbox_mode=*) sandbox=$(echo "$1" | sed 's/^sandbox_mode="\(.*\)"$/\1/') ;;
        model=*) model=$(echo "$1" | sed 's/^model="\(.*\)"$/\1/') ;;
        *) echo "error: unknown config $1" >&2; exit 2 ;;
      esac ;;
    --sandbox|-s|--model|-m) [ -z "$resume" ] || { echo "error: unexpected argument '$1' found" >&2; exit 2; }
      opt=$1; shift
      case "$opt" in --sandbox|-s) sandbox=$1 ;; *) model=$1 ;; esac ;;
    -) prompt=$(cat) ;;
    -*) echo "error: unexpected argument '$1' found" >&2; exit 2 ;;
    *) prompt=$1 ;;
  esac
  shift
done
set -- $args
if [ -f "$(dirname "$0")/fail" ]; then
  echo '{"type":"thread.started","thread_id":"codex-thread-1"}'
  printf '%s\n' '{"type":"turn.failed","error":{"message":'"$(cat "$(dirname "$0")/fail")"'}}'
  exit 1
fi
case "$sandbox" in read-only) echo "codex: read-only sandbox, cannot edit" >&2; exit 1 ;; workspace-write|danger-full-access) ;; *) echo "error: invalid value '$sandbox' for '--sandbox'" >&2; exit 2 ;; esac
` + work + `
if [ "$json" = 1 ]; then
  echo '{"type":"thread.started","thread_id":"codex-thread-1"}'
  echo '{"type":"turn.started"}'
  printf '%s\n' '{"type":"item.completed","item":{"id":"item_0","type":"agent_message","text":'"$final"'}}'
  echo '{"type":"turn.completed","usage":{"input_tokens":700,"cached_input_tokens":100,"output_tokens":50}}'
fi
`

// aider parses `aider --message-file f [--yes-always] [--no-auto-commits]
// [--no-gitignore] [--no-detect-urls] [--no-analytics]
// [--no-show-release-notes] [--no-check-update] [--no-pretty]
// [--no-stream] [--model m]`. Like aider, it keeps its histories and
// repository-map cache at the repository root and, unless told
// --no-gitignore, adds `.aider*` to .gitignore when git does not already
// ignore `.aider`.
const aider = `#!/bin/sh
cli=aider; version="aider 0.86.2"
` + preflight + `
model=; file=; yes=0; autocommit=1; gitignore=1
args="$*"
while [ $# -gt 0 ]; do
  case "$1" in
    --message-file|-f) shift; file=$1 ;;
    --yes-always) yes=1 ;;
    --no-auto-commits) autocommit=0 ;;
    --no-gitignore) gitignore=0 ;;
    --no-check-update|--no-pretty|--no-stream|--no-detect-urls|--no-analytics|--no-show-release-notes) ;;
    --model) shift; model=$1 ;;
    *) echo "aider: error: unrecognized arguments: $1" >&2; exit 2 ;;
  esac
  shift
done
set -- $args
[ -n "$file" ] || { echo "aider stand-in: no --message-file; it would open a chat" >&2; exit 2; }
[ "$yes" = 1 ] || { echo "aider stand-in: would ask for confirmation" >&2; exit 2; }
[ "$autocommit" = 0 ] || { echo "aider stand-in: would commit on its own" >&2; exit 2; }
if [ "$gitignore" = 1 ] && ! git check-ignore -q .aider; then echo '.aider*' >> .gitignore; fi
mkdir -p .aider.tags.cache.v4 && : > .aider.tags.cache.v4/cache.db
echo "# aider chat started" >> .aider.chat.history.md
echo "+$file" >> .aider.input.history
prompt=$(cat "$file")
` + work + `
echo "Tokens: 1.5k sent, 200 cache write, 1k cache hit, 250 received."
echo "Cost: \$0.02 message, \$0.02 session."
`

// Write places the three stand-ins in a new directory and returns it; a
// test puts it first on PATH.
func Write(t testing.TB) string {
	t.Helper()
	dir := t.TempDir()
	if err := WriteDir(dir); err != nil {
		t.Fatal(err)
	}
	return dir
}

// WriteDir places the three stand-ins in dir, an existing directory: for
// scripts (testscript) that have no testing.TB.
func WriteDir(dir string) error {
	for name, script := range map[string]string{"claude": claude, "codex": codex, "aider": aider} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(script), 0o755); err != nil {
			return err
		}
	}
	return nil
}

// Set writes one of the steering files next to the stand-ins.
func Set(t testing.TB, dir, name, content string) {
	t.Helper()
	if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// CallsOf returns the calls the stand-ins in dir recorded, in order.
func CallsOf(t testing.TB, dir string) []string {
	t.Helper()
	return lines(t, filepath.Join(dir, Calls))
}

// PreflightsOf returns the preflight calls the stand-ins in dir recorded,
// in order.
func PreflightsOf(t testing.TB, dir string) []string {
	t.Helper()
	return lines(t, filepath.Join(dir, Preflights))
}

func lines(t testing.TB, path string) []string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		if os.IsNotExist(err) {
			return nil
		}
		t.Fatal(err)
	}
	return strings.Split(strings.TrimRight(string(data), "\n"), "\n")
}
