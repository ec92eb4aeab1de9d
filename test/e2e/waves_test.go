package e2e

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
	"testing"
	"time"
)

// wavesAgent answers a wave's task brief with the task's file and its
// return, logging the start and end of each (task, attempt) to $RUNLOG and
// sleeping $AGENT_SLEEP in between; any other brief (the seed, a row) is
// the crash suite's agent's.
const wavesAgent = `#!/bin/sh
set -eu
tuple=$(sed -n 's/^task: \([^ ]* | attempt [0-9]* | [0-9a-f]*\)$/\1/p' "$GALLIVANT_TASK" | head -n 1)
if [ -n "$tuple" ]; then
  id=${tuple%% *}
  rest=${tuple#* | attempt }
  attempt=${rest%% *}
  echo "task-start $id $attempt" >> "$RUNLOG"
  sleep "$AGENT_SLEEP"
  mkdir -p ratelimit
  echo "// $id attempt $attempt" > "ratelimit/$id.go"
  git add -A
  printf 'loop: task %s done\n\ntask: %s\n\nWrote ratelimit/%s.go.\n' "$id" "$tuple" "$id" | git commit --quiet -F -
  echo "task-done $id $attempt" >> "$RUNLOG"
  exit 0
fi
` + "AGENT_SLEEP=0\n"

const wavesSpec = "---\nengine: waves\n---\n# Feature Specification: Rate limiting\n\n## User Scenarios & Testing *(mandatory)*\n\n" +
	"### User Story 1 - Callers over the limit wait (Priority: P1)\n\n**Acceptance Scenarios**:\n\n" +
	"1. **Given** a token over its limit, **When** it sends a request, **Then** the response is 429\n\n## Verify\n\n- `test -f ratelimit/T003.go`\n"

const wavesTasks = "# Tasks: Rate limiting\n\n## Phase 1: User Story 1 (Priority: P1)\n\n" +
	"- [ ] T001 [P] [US1] Count requests in ratelimit/T001.go\n- [ ] T002 [P] [US1] Answer 429 in ratelimit/T002.go\n\n" +
	"## Phase 2: Polish\n\n- [ ] T003 [US1] Document the limits in ratelimit/T003.go\n"

// A pass of the built binary killed with SIGKILL while a wave's two tasks
// run at once (issue 36, docs/plans.md "Crashes") converges: killed with
// its whole process tree, the attempts whose agents died are settled as
// misses and run again as new attempts; killed alone, its orphaned agents
// finish and their returns are admitted by a later pass. Either way no
// (task, attempt) runs twice, each task's commit is on the work branch
// once, the pull request is labelled ready and verify is clean.
func TestWaveKilledMidRun(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name     string
		tree     bool
		attempts string // of T001 and T002 at the end
	}{
		{"whole tree", true, "2"},
		{"reconciler alone", false, "1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			dir := t.TempDir()
			agent := filepath.Join(dir, "agent.sh")
			if err := os.WriteFile(agent, []byte(wavesAgent+strings.TrimPrefix(agentScript, "#!/bin/sh\n")), 0o755); err != nil {
				t.Fatal(err)
			}
			sb := startSandbox(t, filepath.Join(dir, "sandbox"), 1000000, "acme/api", "acme/control")
			w := &cacheWorld{t: t, sandbox: sb, control: sb["GIT_URL_ACME_CONTROL"], cache: filepath.Join(dir, "cache")}
			runlog := filepath.Join(dir, "runs.log")
			w.env = append(worldEnv(sb, w.cache, agent, runlog, "waves-kill-test"), "AGENT_SLEEP=3")
			src := filepath.Join(dir, "src")
			gitIn(t, dir, "clone", "--quiet", withToken(w.control, sb["GITHUB_TOKEN"]), src)
			cfg := strings.Replace(cacheConfig, "  timeout: 30s\n", "  timeout: 30s\n  max_parallel: 2\n", 1) + "formats:\n  spec_kit: [specs]\n"
			controlEdit(t, src, map[string]string{"gallivant.yaml": cfg, "specs/001-rate-limit/spec.md": wavesSpec, "specs/001-rate-limit/tasks.md": wavesTasks})

			cmd, exited, out := w.startPass()
			within(t, 3*time.Minute, "both tasks of wave 1 to run", func() bool {
				data, _ := os.ReadFile(runlog)
				return strings.Contains(string(data), "task-start T001 1\n") && strings.Contains(string(data), "task-start T002 1\n")
			})
			pids := []int{cmd.Process.Pid}
			if tc.tree {
				pids = append(pids, descendants(cmd.Process.Pid)...)
			}
			for _, pid := range pids {
				syscall.Kill(pid, syscall.SIGKILL)
			}
			<-exited
			if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); !ok || ws.Signal() != syscall.SIGKILL {
				t.Fatalf("the pass was not killed: %v\n%s", cmd.ProcessState, out.String())
			}

			within(t, 5*time.Minute, "the entry to be labelled ready", func() bool {
				w.pass()
				return w.did("specs/001-rate-limit/spec.md", "loop: ready acme/api#1")
			})
			data, err := os.ReadFile(runlog)
			if err != nil {
				t.Fatal(err)
			}
			var starts []string
			for _, ln := range strings.Split(string(data), "\n") {
				if strings.HasPrefix(ln, "task-start ") {
					if slices.Contains(starts, ln) {
						t.Errorf("%s: a (task, attempt) ran twice:\n%s", ln, data)
					}
					starts = append(starts, ln)
				}
			}
			gitIn(t, src, "pull", "--quiet", "--rebase", "origin", "main")
			ld, err := os.ReadFile(filepath.Join(src, "plans/001-rate-limit-ledger.md"))
			if err != nil {
				t.Fatal(err)
			}
			for _, id := range []string{"T001", "T002"} {
				if want := fmt.Sprintf("task %s | wave 1 | done | %s | ", id, tc.attempts); !strings.Contains(string(ld), want) {
					t.Errorf("the ledger lacks %q:\n%s", want, ld)
				}
			}
			if !strings.Contains(string(ld), "task T003 | wave 2 | done | 1 | ") {
				t.Errorf("task T003 is not done after one attempt:\n%s", ld)
			}
			work := filepath.Join(dir, "work")
			gitIn(t, dir, "clone", "--quiet", "--branch", "gallivant/001-rate-limit", withToken(sb["GIT_URL_ACME_API"], sb["GITHUB_TOKEN"]), work)
			for _, id := range []string{"T001", "T002", "T003"} {
				if got := gitIn(t, work, "log", "--format=%h", "--grep=^task: "+id+" | "); len(strings.Fields(got)) != 1 {
					t.Errorf("task %s's commit is on the work branch %d times: %q", id, len(strings.Fields(got)), got)
				}
			}
			verify := exec.Command(bin, "verify", "--control", w.control)
			verify.Env = w.env
			if out, err := verify.CombinedOutput(); err != nil {
				t.Errorf("gallivant verify: %v\n%s", err, out)
			}
		})
	}
}

// within polls cond until it holds, failing the test after d: the passes
// it runs are real processes on a machine that may be busy.
func within(t *testing.T, d time.Duration, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(d)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
