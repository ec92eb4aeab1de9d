package e2e

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"io"
	"math/rand/v2"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/ledger"
)

// enduranceAgent answers row, seed and round briefs like a real agent that
// sometimes misbehaves: the first time it meets a job (spec, target and
// round: a row, the seed or a review round) it may hang past the executor's
// timeout, crash, or commit something that is not a loop return, chosen by
// a hash of the job and $SOAK_SEED; later attempts behave. It logs "start"/"done" with the dispatch, and "commit <sha>
// <repo>" for each commit it finished, so that the test can tell a
// dispatch that ran to its end twice and a finished commit that was lost.
const enduranceAgent = `#!/bin/sh
set -eu
get() { sed -n "s/^$1: //p" "$GALLIVANT_TASK" | head -n 1; }
target=$(get target); pending=$(get pending); iteration=$(get iteration); attempts=$(get attempts)
round=$(get round); repo=$(get repo)
# Each spec writes files of its own: specs of one repository never conflict.
name=$(basename "$GALLIVANT_SPEC" .md)
key="$GALLIVANT_SPEC $target ${round:-0} $pending"
job="$GALLIVANT_SPEC $target ${round:-0}"
tries=$(grep -c -F "try $job." "$RUNLOG" || true)
echo "try $job." >> "$RUNLOG"
if [ "$tries" = 0 ]; then
  h=$(printf '%s %s' "$job" "$SOAK_SEED" | cksum | cut -d' ' -f1)
  case $((h % 7)) in
  0) echo "hang $key" >> "$RUNLOG"; sleep 40; exit 0 ;;
  1) echo "crash $key" >> "$RUNLOG"; echo "segmentation fault" >&2; exit 139 ;;
  2) echo "malformed $key" >> "$RUNLOG"; echo junk >> "$name-junk.txt"; git add -A
     git commit --quiet -m "did some of it"; exit 0 ;;
  esac
fi
echo "start $$ $key" >> "$RUNLOG"
sleep "$AGENT_SLEEP"
if [ "$target" = round ]; then
  echo "round $round" >> "$name-answers.txt"; git add -A
  git commit --quiet -m "Answer the review of round $round"
elif [ "$target" = seed ]; then
  next=$((iteration + 1))
  body=""; k=0; first=""
  for n in $(sed -n 's/^- row \([0-9]*\): .*/\1/p' "$GALLIVANT_TASK"); do
    body="$body| $n | open | 0 | test -f $name-row-$n.txt; FAIL: missing |
"
    k=$((k + 1)); [ -n "$first" ] || first="row $n"
  done
  printf 'loop: seed evidence\n\npending: %s\niteration: %s\n\n%s\nrow 0 done | seeded %s rows, closed 0 on baseline | %s\n' "$pending" "$next" "$body" "$k" "$first" | git commit --quiet --allow-empty -F -
else
  next=$((iteration + 1))
  echo "$target" > "$name-row-$target.txt"; git add -A
  printf 'loop: row %s done\n\npending: %s\niteration: %s\n\n| %s | done | %s | test -f %s-row-%s.txt; ok |\n\nrow %s done | wrote %s-row-%s.txt | next\n' "$target" "$pending" "$next" "$target" "$((attempts + 1))" "$name" "$target" "$target" "$name" "$target" | git commit --quiet -F -
fi
echo "commit $(git rev-parse HEAD) $repo" >> "$RUNLOG"
echo "done $$ $key" >> "$RUNLOG"
`

// endurance is the size of one endurance run.
type endurance struct {
	specs    int     // specs of two rows each, over three repositories
	passes   int     // at least this many reconciler passes
	slots    int     // concurrent reconcilers, each on its own cache
	killRate float64 // the share of passes killed at a random moment
	// agentKills is how many kills must land during an agent run before
	// the kills end (with the passes at their count).
	agentKills int
	// treeInAgentRuns lets a kill during an agent run take the agent
	// with it. Off in the short run: a review round killed with its
	// agent is settled `loop: empty round` and its change request is
	// dropped (issue 33), which the release soak finds until it is fixed.
	treeInAgentRuns bool
	faults          string        // --faults
	bound           time.Duration // the whole run, at most
}

// enduranceFaults fails the API and git's smart HTTP: every fetch and
// push of the control branch and of the work branches.
const enduranceFaults = "5xx=0.02,timeout=0.003,403=0.002,429=0.002,secondary=0.005,malformed=0.003,lost=0.02," +
	"git-5xx=0.01,git-timeout=0.002,git-lost=0.05,git-reset=0.01"

func shortEndurance() endurance {
	return endurance{specs: 3, passes: 40, slots: 2, killRate: 0.3, agentKills: 3, faults: enduranceFaults, bound: 4 * time.Minute}
}

func longEndurance() endurance {
	return endurance{specs: 12, passes: 1000, slots: 3, killRate: 0.15, agentKills: 30, treeInAgentRuns: true, faults: enduranceFaults, bound: 20 * time.Minute}
}

// gitNet runs git against the sandbox, which fails git requests too:
// a failed attempt is tried again, 10 times at most.
func gitNet(t testing.TB, dir string, args ...string) string {
	t.Helper()
	var err error
	for try := 0; try < 10; try++ {
		var out string
		if out, err = gitErr(dir, args...); err == nil {
			return out
		}
	}
	t.Fatalf("git %v, 10 times: %v", args, err)
	return ""
}

// enduranceRepos are the target repositories; acme/web has CI (the scripted
// CI posts a status on every head), the others none.
var enduranceRepos = []string{"acme/api", "acme/web", "acme/cli"}

// sandboxProc is a `gallivant sandbox` process whose standard error the
// test reads when it stops.
type sandboxProc struct {
	cmd    *exec.Cmd
	stderr bytes.Buffer
	env    map[string]string
	once   sync.Once
}

func startFaultySandbox(t *testing.T, dir, faults string, seed uint64, users []string, repos ...string) *sandboxProc {
	t.Helper()
	args := []string{"sandbox", "--dir", dir, "--rate-limit", "1000000", "--faults", faults, "--fault-seed", strconv.FormatUint(seed, 10), "--fault-hold", "1s"}
	for _, r := range repos {
		args = append(args, "--repo", r)
	}
	for _, u := range users {
		args = append(args, "--user", u)
	}
	sp := &sandboxProc{cmd: exec.Command(bin, args...), env: map[string]string{}}
	out, err := sp.cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	sp.cmd.Stderr = &sp.stderr
	if err := sp.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { sp.stop() })
	sc := bufio.NewScanner(out)
	for len(sp.env) < 2+len(repos)+len(users) && sc.Scan() {
		k, v, _ := strings.Cut(sc.Text(), "=")
		sp.env[k] = v
	}
	go io.Copy(io.Discard, out)
	if sp.env["GITHUB_API_URL"] == "" {
		sp.stop()
		t.Fatalf("the sandbox did not start: %v\n%s", sp.env, sp.stderr.String())
	}
	return sp
}

// stop ends the sandbox and returns what it injected, by kind.
func (sp *sandboxProc) stop() map[string]int {
	sp.once.Do(func() {
		sp.cmd.Process.Signal(syscall.SIGTERM)
		sp.cmd.Wait()
	})
	out := map[string]int{}
	for _, line := range strings.Split(sp.stderr.String(), "\n") {
		rest, ok := strings.CutPrefix(line, "sandbox faults injected: ")
		if !ok {
			continue
		}
		for _, f := range strings.Fields(rest) {
			k, v, _ := strings.Cut(f, "=")
			out[k], _ = strconv.Atoi(v)
		}
	}
	return out
}

// person is someone acting on the sandbox with their own token, as people
// do: through the API, which fails them as it fails gallivant.
type person struct {
	api, token string
}

func (p person) do(method, path string, body, out any) (int, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, p.api+path, rd)
	if err != nil {
		return 0, err
	}
	req.Header.Set("Authorization", "Bearer "+p.token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, err
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode >= 300 {
		return resp.StatusCode, fmt.Errorf("%s %s: %s", method, path, resp.Status)
	}
	if out != nil {
		if err := json.Unmarshal(b, out); err != nil {
			return resp.StatusCode, err
		}
	}
	return resp.StatusCode, nil
}

// people are the scripted CI, reviewer and merger, and the person who
// answers stops.
type people struct {
	w              *world
	ci, rita, mo   person
	src            string            // the person's clone of the control repository
	reviewed       map[string]string // repo#n → the head rita last reviewed
	asked          map[string]bool   // repo#n → rita requested changes once
	statused       map[string]bool   // head SHAs CI reported on
	answered       map[string]time.Time
	answeredReason map[string]int
	answers        map[string]int // per stop (ledger, reason, detail)
	neverStarted   int            // interrupted stops answered whose agent never started
	unanswerable   []string
}

type pull struct {
	Number int
	Head   struct{ SHA, Ref string }
	Labels []struct{ Name string }
}

// act does one round of what people do: CI reports on new heads of
// acme/web, rita reviews every new head (asking for changes once on about
// half of the pull requests, else approving), mo merges what is labelled
// ready, and stops are answered as the docs say only a person can.
func (pp *people) act(ls map[string]*ledger.Ledger) {
	for _, repo := range enduranceRepos {
		var prs []pull
		if _, err := pp.mo.do("GET", "repos/"+repo+"/pulls?state=open&per_page=100", nil, &prs); err != nil {
			continue
		}
		for _, pr := range prs {
			if !strings.HasPrefix(pr.Head.Ref, "gallivant/") {
				continue
			}
			key := fmt.Sprintf("%s#%d", repo, pr.Number)
			if repo == "acme/web" && !pp.statused[pr.Head.SHA] {
				if _, err := pp.ci.do("POST", "repos/"+repo+"/statuses/"+pr.Head.SHA, map[string]string{"state": "success", "context": "ci/soak", "description": "soak CI"}, nil); err == nil {
					pp.statused[pr.Head.SHA] = true
				}
			}
			if pp.reviewed[key] != pr.Head.SHA {
				event, body := "APPROVE", ""
				if !pp.asked[key] && hashOf(key)%2 == 0 {
					event, body = "REQUEST_CHANGES", "Please also note what this round answers."
				}
				if _, err := pp.rita.do("POST", fmt.Sprintf("repos/%s/pulls/%d/reviews", repo, pr.Number), map[string]string{"event": event, "body": body, "commit_id": pr.Head.SHA}, nil); err == nil {
					pp.reviewed[key] = pr.Head.SHA
					if event == "REQUEST_CHANGES" {
						pp.asked[key] = true
					}
				}
			}
			if slices.ContainsFunc(pr.Labels, func(l struct{ Name string }) bool { return l.Name == "ready-for-human" }) {
				pp.mo.do("PUT", fmt.Sprintf("repos/%s/pulls/%d/merge", repo, pr.Number), map[string]string{}, nil)
			}
		}
	}
	pp.answerStops(ls)
}

func hashOf(s string) uint32 {
	h := fnv.New32a()
	h.Write([]byte(s))
	return h.Sum32()
}

// answerStops answers each stop with the request docs/ledger.md names for
// it, counting them by reason. An `interrupted` stop of a pending dispatch
// clears by itself once the run record's cache is back (the crash suite's
// contract), so it is answered only when it stands for 60s. A stop no
// request of a person should be needed for fails the run.
func (pp *people) answerStops(ls map[string]*ledger.Ledger) {
	for path, l := range ls {
		reason, detail, stopped := l.Stop()
		if !stopped {
			continue
		}
		key := path + "\x00" + string(reason) + "\x00" + detail
		first, seen := pp.answered[key]
		if !seen {
			pp.answered[key] = time.Now()
			first = time.Now()
		}
		var request string
		switch reason {
		case ledger.StopInterrupted:
			if time.Since(first) < 60*time.Second {
				continue
			}
			request = "resume | the soak's person: the interrupted dispatch may run again"
		case ledger.StopHarnessError, ledger.StopBoundary, ledger.StopSeedRefused,
			ledger.StopChecksSilent, ledger.StopReviewerSilent, ledger.StopVerifyFailed:
			request = "resume | the soak's person: " + string(reason) + " looked at"
		case ledger.StopStuck, ledger.StopMergeUnknown:
			request = "recheck | the soak's person: GitHub answers again"
		default:
			pp.unanswerable = append(pp.unanswerable, fmt.Sprintf("%s stopped %s: %s", path, reason, detail))
			continue
		}
		if at, ok := pp.answered[key+"\x00done"]; ok && time.Since(at) < 60*time.Second {
			continue // answered; the next pass takes it
		}
		if pp.answers[key]++; pp.answers[key] > 3 {
			// The same stop again and again: the answer does not help.
			pp.unanswerable = append(pp.unanswerable, fmt.Sprintf("%s stopped %s again after 3 answers: %s", path, reason, detail))
			continue
		}
		if err := pp.request(path, request); err != nil {
			pp.w.t.Logf("answer %s: %v", path, err)
			continue
		}
		pp.answered[key+"\x00done"] = time.Now()
		pp.answeredReason[string(reason)]++
		ran := ""
		if reason == ledger.StopInterrupted && l.Pending != nil {
			// Whether an agent ever started on the stopped dispatch: a
			// pass killed between its write-ahead dispatch commit and
			// the agent's start leaves no run record anywhere.
			runlog, _ := os.ReadFile(pp.w.runlog)
			ran = "; its agent never started"
			if bytes.Contains(runlog, []byte(" "+l.Pending.String())) {
				ran = "; its agent started"
			} else {
				pp.neverStarted++
			}
		}
		pp.w.t.Logf("a person answered %s, stopped %s (%s%s): %s", path, reason, detail, ran, request)
	}
}

// request appends line to the ledger's ## Requests section on the control
// branch, as a person would, rebasing over the reconcilers' commits.
func (pp *people) request(path, line string) error {
	for try := 0; try < 8; try++ {
		if _, err := gitErr(pp.src, "pull", "--quiet", "--rebase", "origin", "main"); err != nil {
			gitErr(pp.src, "rebase", "--abort")
			gitErr(pp.src, "reset", "--quiet", "--hard", "origin/main")
			continue
		}
		b, err := os.ReadFile(filepath.Join(pp.src, path))
		if err != nil {
			return err
		}
		s := string(b)
		if !strings.Contains(s, "## Requests") {
			s = strings.TrimRight(s, "\n") + "\n\n## Requests\n\n"
		}
		s = strings.TrimRight(s, "\n") + "\n" + line + "\n"
		if err := os.WriteFile(filepath.Join(pp.src, path), []byte(s), 0o644); err != nil {
			return err
		}
		gitErr(pp.src, "commit", "--quiet", "-am", "Answer "+path)
		if _, err := gitErr(pp.src, "push", "--quiet", "origin", "HEAD:main"); err == nil {
			return nil
		}
		gitErr(pp.src, "reset", "--quiet", "--hard", "origin/main")
	}
	return fmt.Errorf("the control branch moved under 8 pushes")
}

// TestEndurance is the crash suite's world grown into an endurance run:
// three target repositories, a scripted reviewer, CI and merger, agents
// that hang, crash or return malformed commits, `gallivant sandbox
// --faults` failing the API and git's fetches and pushes, and reconcilers on their own caches killed
// at random, the pass alone or its whole tree. It ends when every spec is
// merged, and then checks that `check` and `verify` are clean, that no
// dispatch ran to its end twice and that no finished agent commit is
// missing from its repository. A short run is part of `go test ./...`;
// GALLIVANT_SOAK=1 runs at least 1,000 passes over 12 specs.
func TestEndurance(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the suite finds agent processes through /proc")
	}
	if testing.Short() {
		t.Skip("a black-box run of a few minutes; not with -short")
	}
	e := shortEndurance()
	if os.Getenv("GALLIVANT_SOAK") != "" {
		e = longEndurance()
		if n, err := strconv.Atoi(os.Getenv("GALLIVANT_SOAK_PASSES")); err == nil && n > 0 {
			e.passes = n
		}
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GALLIVANT_E2E_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("GALLIVANT_E2E_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (rerun with GALLIVANT_E2E_SEED=%d); %d passes at least over %d specs in %d repositories, %d reconcilers, faults %s",
		seed, seed, e.passes, e.specs, len(enduranceRepos), e.slots, e.faults)
	fmt.Fprintf(os.Stderr, "e2e: endurance seed %d (GALLIVANT_E2E_SEED)\n", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))

	w := &world{t: t, dir: t.TempDir()}
	w.runlog = filepath.Join(w.dir, "runs.log")
	agent := filepath.Join(w.dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(enduranceAgent), 0o755); err != nil {
		t.Fatal(err)
	}
	sb := startFaultySandbox(t, filepath.Join(w.dir, "sandbox"), e.faults, seed, []string{"rita", "mo"}, append(slices.Clone(enduranceRepos), "acme/control")...)
	env := sb.env
	w.control = env["GIT_URL_ACME_CONTROL"]
	w.env = append(os.Environ(), "GITHUB_API_URL="+env["GITHUB_API_URL"], "GITHUB_TOKEN="+env["GITHUB_TOKEN"], "GH_TOKEN=",
		"AGENT="+agent, "RUNLOG="+w.runlog, "AGENT_SLEEP=0.5", "SOAK_SEED="+strconv.FormatUint(seed, 10), "GALLIVANT_MERGE_POLL=50ms", "GITHUB_ACTIONS=",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	t.Cleanup(func() {
		if t.Failed() {
			w.dump()
		}
		// Only this world's agents: a recorded process group id may by
		// now be another process's (pids wrap within minutes on a busy
		// machine), so a member is killed only if its environment names
		// this world's run log (crash_test.go).
		_, _, pids := w.runs()
		for _, pid := range groupMembersWith(pids, "RUNLOG="+w.runlog) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	src := filepath.Join(w.dir, "src")
	gitNet(t, w.dir, "clone", "--quiet", withToken(w.control, env["GITHUB_TOKEN"]), src)
	files := map[string]string{
		"gallivant.yaml": "defaults:\n  repo: acme/api\n  escalate_after: 9\nreviewer:\n  login: rita\n" +
			"executor:\n  kind: command\n  command: [\"sh\", \"-c\", \"exec sh \\\"$AGENT\\\"\"]\n  timeout: 6s\n  grace: 2s\n" +
			"  env: [PATH, HOME, AGENT, RUNLOG, AGENT_SLEEP, SOAK_SEED, GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL]\n" +
			"checks:\n  none: [acme/api, acme/cli]\n",
	}
	for i := 0; i < e.specs; i++ {
		name := fmt.Sprintf("spec%02d", i)
		files["specs/"+name+".md"] = fmt.Sprintf("---\nrepo: %s\n---\n# %s\n\n## Acceptance criteria\n1. %s one.\n2. %s two.\n", enduranceRepos[i%len(enduranceRepos)], name, name, name)
	}
	for path, s := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, path)), 0o755)
		os.WriteFile(filepath.Join(src, path), []byte(s), 0o644)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "Approve specs")
	gitNet(t, src, "push", "--quiet", "origin", "HEAD:main")
	w.observe = src
	personSrc := filepath.Join(w.dir, "person")
	gitNet(t, w.dir, "clone", "--quiet", withToken(w.control, env["GITHUB_TOKEN_MO"]), personSrc)
	pp := &people{w: w, src: personSrc,
		ci:       person{env["GITHUB_API_URL"], env["GITHUB_TOKEN_MO"]},
		rita:     person{env["GITHUB_API_URL"], env["GITHUB_TOKEN_RITA"]},
		mo:       person{env["GITHUB_API_URL"], env["GITHUB_TOKEN_MO"]},
		reviewed: map[string]string{}, asked: map[string]bool{}, statused: map[string]bool{},
		answered: map[string]time.Time{}, answeredReason: map[string]int{}, answers: map[string]int{}}

	start := time.Now()
	deadline := start.Add(e.bound)
	var passes, agentKills atomic.Int64
	var stop atomic.Bool
	// Each slot's kill plan is drawn up front from the seed, so that the
	// slots' goroutines share no generator.
	plans := make([][]plan, e.slots)
	for s := range plans {
		for i := 0; i < 4*e.passes; i++ {
			var pl plan
			if rng.Float64() < e.killRate {
				switch rng.IntN(3) {
				case 0:
					pl.delay = time.Duration(1 + rng.Int64N(int64(300*time.Millisecond)))
				case 1:
					pl.delay = time.Duration(1 + rng.Int64N(int64(2500*time.Millisecond)))
				case 2:
					// Within the agent's half second of work.
					pl.agent = true
					pl.delay = time.Duration(1 + rng.Int64N(int64(400*time.Millisecond)))
				}
			}
			pl.tree = rng.IntN(2) == 0
			pl.frac = rng.Float64()
			plans[s] = append(plans[s], pl)
		}
	}
	var wg sync.WaitGroup
	for s := 0; s < e.slots; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			time.Sleep(time.Duration(s) * 350 * time.Millisecond)
			var carried *plan
			for gen := 0; !stop.Load() && time.Now().Before(deadline); gen++ {
				if gen > 0 {
					// As a schedule would: an idle pass takes milliseconds,
					// and a tight loop of them would only load the machine.
					time.Sleep(150 * time.Millisecond)
				}
				step := plans[s][gen%len(plans[s])]
				if carried != nil {
					step, carried = *carried, nil
				}
				pr := w.startOn(s, gen)
				passes.Add(1)
				// Kills only while the pass count or the kills during agent
				// runs are short of the goal: afterwards the world
				// converges under faults alone.
				if passes.Load() >= int64(e.passes) && agentKills.Load() >= int64(e.agentKills) {
					<-pr.exited
					continue
				}
				if step.delay != 0 && !step.agent {
					select {
					case <-pr.exited:
					case <-time.After(step.delay):
						w.killPass(pr, step.tree)
					}
					continue
				}
				// Any other pass that starts an agent is killed during
				// its run, half of the time while the kills during agent
				// runs are short of the goal.
				if !pr.awaitAgent() {
					if step.agent {
						carried = &step // wait for a pass that starts one
					}
					continue
				}
				if !step.agent && (agentKills.Load() >= int64(e.agentKills) || step.frac >= 0.5) {
					<-pr.exited
					continue
				}
				delay := step.delay
				if !step.agent {
					delay = time.Duration(1 + step.frac*float64(800*time.Millisecond))
				}
				select {
				case <-pr.exited:
				case <-time.After(delay):
					if !w.killPass(pr, step.tree && e.treeInAgentRuns) && pr.during == "agent run" {
						agentKills.Add(1)
					}
				}
			}
		}(s)
	}

	// People act between the passes until every spec is merged and the
	// passes reached their count.
	var ls map[string]*ledger.Ledger
	var done bool
	for {
		time.Sleep(700 * time.Millisecond)
		ls, _ = w.ledgers()
		done = len(ls) == e.specs
		for _, l := range ls {
			if l.Phase() != ledger.PhaseDone {
				done = false
			}
		}
		if done && passes.Load() >= int64(e.passes) {
			break
		}
		if time.Now().After(deadline) || len(pp.unanswerable) > 0 {
			break
		}
		pp.act(ls)
	}
	stop.Store(true)
	wg.Wait()
	for _, u := range pp.unanswerable {
		t.Errorf("a stop no person's request is documented for: %s", u)
	}
	if !done {
		var open []string
		for path, l := range ls {
			if l.Phase() != ledger.PhaseDone {
				reason, detail, _ := l.Stop()
				open = append(open, fmt.Sprintf("%s: phase %s %s %s", path, l.Phase(), reason, detail))
			}
		}
		sort.Strings(open)
		t.Fatalf("not every spec merged after %d passes in %s (%d ledgers of %d specs):\n%s", passes.Load(), time.Since(start).Round(time.Second), len(ls), e.specs, strings.Join(open, "\n"))
	}

	// `check` and `verify` are clean on the end state.
	gitNet(t, src, "pull", "--quiet", "--rebase", "origin", "main")
	for _, args := range [][]string{{"check"}, {"verify", "--control", w.control}} {
		// verify fetches the control branch through the faults: a
		// failure is tried again; one that stays is reported.
		var out []byte
		var err error
		for try := 0; try < 5; try++ {
			cmd := exec.Command(bin, args...)
			cmd.Dir, cmd.Env = src, w.env
			if out, err = cmd.CombinedOutput(); err == nil {
				break
			}
		}
		if err != nil {
			t.Errorf("gallivant %s: %v\n%s", args[0], err, out)
		}
	}
	// No dispatch ran to its end twice.
	started, finished, _ := w.runs()
	dups := 0
	for key, n := range finished {
		if n > 1 {
			dups++
			t.Errorf("%s ran to its end %d times", key, n)
		}
	}
	// No finished agent commit is missing from its repository: each is
	// merged into main (a merge commit keeps it).
	lost := w.lostCommits(env)
	for _, c := range lost {
		t.Errorf("agent commit %s is not in its repository's main", c)
	}
	w.checkReports()
	// No pull request and no comment of gallivant's was made twice, lost
	// responses notwithstanding.
	for _, d := range pp.duplicateWrites() {
		t.Error(d)
	}
	misbehaved := map[string]int{}
	data, _ := os.ReadFile(w.runlog)
	for _, line := range strings.Split(string(data), "\n") {
		if f := strings.Fields(line); len(f) > 0 && (f[0] == "hang" || f[0] == "crash" || f[0] == "malformed") {
			misbehaved[f[0]]++
		}
	}
	killed, during := map[string]int{}, map[string]int{}
	for _, pr := range w.procs {
		killed[pr.killed]++
		during[pr.during]++
	}
	faults := sb.stop()
	msg := fmt.Sprintf("endurance: %d specs in %d repositories merged in %s: %d passes by %d reconcilers; %d kills (%d the pass alone, %d its tree; %d during an agent run, %d in the reconciler's own work, %d spared at the rerun budget); faults injected %s; agents %d started, %d finished, %d hung, %d crashed, %d malformed; person-answered stops %s (%d interrupted before their agent started); duplicates %d; lost commits %d",
		e.specs, len(enduranceRepos), time.Since(start).Round(time.Second), passes.Load(), e.slots,
		killed["reconciler"]+killed["tree"], killed["reconciler"], killed["tree"], during["agent run"], during["reconciler"], w.spared,
		countsOf(faults), sum(started), sum(finished), misbehaved["hang"], misbehaved["crash"], misbehaved["malformed"],
		countsOf(pp.answeredReason), pp.neverStarted, dups, len(lost))
	t.Log(msg)
	fmt.Fprintln(os.Stderr, "e2e:", msg)
	if sum(faults) == 0 {
		t.Errorf("the sandbox injected no fault: the run proves nothing about them")
	}
}

// countsOf writes a count map as "k=v k=v" in key order, "none" when empty.
func countsOf(m map[string]int) string {
	if len(m) == 0 {
		return "none"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s=%d", k, m[k])
	}
	return strings.Join(parts, " ")
}

// startOn runs one pass with the slot's own cache.
func (w *world) startOn(slot, gen int) *proc {
	p := &proc{name: fmt.Sprintf("slot%d-gen%04d", slot, gen), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "reconcile", "--control", w.control, "--format", "json")
	p.cmd.Env = append(slices.Clip(w.env), "GALLIVANT_CACHE="+filepath.Join(w.dir, fmt.Sprintf("cache%d", slot)), "GALLIVANT_AUTHOR_NAME="+p.name)
	p.cmd.Stdout, p.cmd.Stderr = &p.stdout, &p.stderr
	p.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := p.cmd.Start(); err != nil {
		w.t.Fatal(err)
	}
	w.mu.Lock()
	w.procs = append(w.procs, p)
	w.mu.Unlock()
	go func() { p.err = p.cmd.Wait(); close(p.exited) }()
	return p
}

// lostCommits lists the agent commits the run log says were finished that
// are not in their repository's main branch.
func (w *world) lostCommits(env map[string]string) []string {
	data, _ := os.ReadFile(w.runlog)
	clones := map[string]string{}
	var lost []string
	for _, line := range strings.Split(string(data), "\n") {
		f := strings.Fields(line)
		if len(f) != 3 || f[0] != "commit" {
			continue
		}
		sha, repo := f[1], f[2]
		dir, ok := clones[repo]
		if !ok {
			dir = filepath.Join(w.dir, "check-"+strings.ReplaceAll(repo, "/", "-"))
			gitNet(w.t, w.dir, "clone", "--quiet", "--bare", env["GIT_URL_"+strings.ToUpper(strings.NewReplacer("/", "_", "-", "_").Replace(repo))], dir)
			clones[repo] = dir
		}
		if _, err := gitErr(dir, "merge-base", "--is-ancestor", sha, "main"); err != nil {
			lost = append(lost, sha+" of "+repo)
		}
	}
	return lost
}

var markerRE = regexp.MustCompile(`<!-- gallivant:[^>]*-->`)

// duplicateWrites lists what gallivant wrote twice on the target
// repositories: two pull requests from one work branch, or two comments
// with one hidden marker on a pull request. The reads go through the
// faults too, so each is tried a few times.
func (pp *people) duplicateWrites() []string {
	get := func(path string, out any) error {
		var err error
		for try := 0; try < 8; try++ {
			if _, err = pp.mo.do("GET", path, nil, out); err == nil {
				return nil
			}
		}
		return err
	}
	var dups []string
	for _, repo := range enduranceRepos {
		var prs []pull
		if err := get("repos/"+repo+"/pulls?state=all&per_page=100", &prs); err != nil {
			dups = append(dups, fmt.Sprintf("list the pull requests of %s: %v", repo, err))
			continue
		}
		heads := map[string]int{}
		for _, pr := range prs {
			heads[pr.Head.Ref]++
			var cs []struct{ Body string }
			if err := get(fmt.Sprintf("repos/%s/issues/%d/comments?per_page=100", repo, pr.Number), &cs); err != nil {
				dups = append(dups, fmt.Sprintf("list the comments of %s#%d: %v", repo, pr.Number, err))
				continue
			}
			markers := map[string]int{}
			for _, c := range cs {
				for _, m := range markerRE.FindAllString(c.Body, -1) {
					markers[m]++
				}
			}
			for m, n := range markers {
				if n > 1 {
					dups = append(dups, fmt.Sprintf("%s#%d has %d comments marked %s", repo, pr.Number, n, m))
				}
			}
		}
		for h, n := range heads {
			if n > 1 {
				dups = append(dups, fmt.Sprintf("%s has %d pull requests from %s", repo, n, h))
			}
		}
	}
	return dups
}
