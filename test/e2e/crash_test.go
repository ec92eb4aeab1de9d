// Package e2e holds black-box tests of the built gallivant binary: real
// processes, real git, `gallivant sandbox` as GitHub, an agent that takes
// seconds, and kill -9 at random moments. Real time is the point here.
package e2e

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/leakcheck"
	"github.com/gallivant/gallivant/internal/testgit"
	"github.com/gallivant/gallivant/ledger"
	"github.com/google/go-cmp/cmp"
)

// bin is the gallivant binary TestMain builds.
var bin string

func TestMain(m *testing.M) {
	dir, err := os.MkdirTemp("", "gallivant-e2e-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	bin = filepath.Join(dir, "gallivant")
	build := exec.Command("go", "build", "-o", bin, "github.com/gallivant/gallivant/cmd/gallivant")
	build.Stdout, build.Stderr = os.Stderr, os.Stderr
	if err := build.Run(); err != nil {
		fmt.Fprintln(os.Stderr, "build gallivant:", err)
		os.Exit(1)
	}
	// The tests' git, the sandbox's and the binary's own (but for its
	// executor's, which sets its own configuration) use a template of one
	// empty hooks directory and no automatic maintenance.
	_, cleanup, err := testgit.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := leakcheck.Checked{M: m}.Run()
	cleanup()
	os.RemoveAll(dir)
	os.Exit(code)
}

// agentScript answers a dispatch from the brief alone after taking a
// while, like a real agent. It logs "start" before it works and "done"
// after its commit, each with the spec and the pending tuple, so the test
// can tell an attempt that ran to its end from one that was killed.
const agentScript = `#!/bin/sh
set -eu
get() { sed -n "s/^$1: //p" "$GALLIVANT_TASK" | head -n 1; }
target=$(get target); pending=$(get pending); iteration=$(get iteration); attempts=$(get attempts)
next=$((iteration + 1))
echo "start $$ $GALLIVANT_SPEC $pending" >> "$RUNLOG"
sleep "$AGENT_SLEEP"
if [ "$target" = seed ]; then
  body=""; k=0; first=""
  for n in $(sed -n 's/^- row \([0-9]*\): .*/\1/p' "$GALLIVANT_TASK"); do
    body="$body| $n | open | 0 | test -f row-$n.txt; FAIL: missing |
"
    k=$((k + 1)); [ -n "$first" ] || first="row $n"
  done
  printf 'loop: seed evidence\n\npending: %s\niteration: %s\n\n%s\nrow 0 done | seeded %s rows, closed 0 on baseline | %s\n' "$pending" "$next" "$body" "$k" "$first" | git commit --quiet --allow-empty -F -
else
  echo "$target" > "row-$target.txt"; git add -A
  printf 'loop: row %s done\n\npending: %s\niteration: %s\n\n| %s | done | %s | test -f row-%s.txt; ok |\n\nrow %s done | wrote row-%s.txt | next\n' "$target" "$pending" "$next" "$target" "$((attempts + 1))" "$target" "$target" "$target" | git commit --quiet -F -
fi
echo "done $$ $GALLIVANT_SPEC $pending" >> "$RUNLOG"
`

// profile is one run of the suite.
type profile struct {
	specs    int           // specs of three rows each
	kills    int           // seeded kill points
	slots    int           // concurrent reconcilers
	stagger  time.Duration // between the slots' first starts
	chaos    time.Duration // at most, for the kill points
	converge time.Duration // at most, for clean passes to reach the end state afterwards
}

func short() profile {
	// The whole run takes 1–2 minutes on 2 busy cores; the bounds only
	// stop a run that would never end.
	return profile{specs: 3, kills: 20, slots: 4, stagger: 350 * time.Millisecond, chaos: 2 * time.Minute, converge: 3 * time.Minute}
}

func soak() profile {
	return profile{specs: 12, kills: 200, slots: 4, stagger: 350 * time.Millisecond, chaos: 20 * time.Minute, converge: 8 * time.Minute}
}

// world is a sandbox, a control repository on it and everything the
// reconciler processes share.
type world struct {
	t       *testing.T
	dir     string
	env     []string // for every reconciler process
	control string   // the control repository's git URL
	observe string   // a clone the test reads the control branch from
	runlog  string
	mu      sync.Mutex
	procs   []*proc

	// killMu serializes the kill points' rerun-budget checks with their
	// kills (mayInterrupt); spared counts the kills it skipped.
	killMu sync.Mutex
	watch  string // a clone of the control repository for those checks
	spared int
}

func gitIn(t testing.TB, dir string, args ...string) string {
	t.Helper()
	out, err := gitErr(dir, args...)
	if err != nil {
		t.Fatalf("git %v: %v", args, err)
	}
	return out
}

func gitErr(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=person", "GIT_AUTHOR_EMAIL=person@example.com",
		"GIT_COMMITTER_NAME=person", "GIT_COMMITTER_EMAIL=person@example.com")
	out, err := cmd.CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%w\n%s", err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// newWorld starts a sandbox with acme/api and acme/control and approves
// the specs on the control repository.
func newWorld(t *testing.T, p profile) *world {
	w := &world{t: t, dir: t.TempDir()}
	w.runlog = filepath.Join(w.dir, "runs.log")
	agent := filepath.Join(w.dir, "agent.sh")
	if err := os.WriteFile(agent, []byte(agentScript), 0o755); err != nil {
		t.Fatal(err)
	}
	// Hundreds of short-lived processes each start with an empty ETag
	// cache; GitHub's rate limit is not what this suite is about.
	env := startSandbox(t, filepath.Join(w.dir, "sandbox"), 1000000, "acme/api", "acme/control")
	w.control = env["GIT_URL_ACME_CONTROL"]
	w.env = append(os.Environ(), "GITHUB_API_URL="+env["GITHUB_API_URL"], "GITHUB_TOKEN="+env["GITHUB_TOKEN"],
		"AGENT="+agent, "RUNLOG="+w.runlog, "AGENT_SLEEP="+strconv.FormatFloat(agentSleep.Seconds(), 'f', -1, 64), "GALLIVANT_MERGE_POLL=50ms", "GITHUB_ACTIONS=",
		"GIT_CONFIG_GLOBAL=/dev/null", "GIT_CONFIG_NOSYSTEM=1", "GIT_AUTHOR_NAME=agent", "GIT_AUTHOR_EMAIL=agent@example.com",
		"GIT_COMMITTER_NAME=agent", "GIT_COMMITTER_EMAIL=agent@example.com")
	// Approve the specs: one push to the control repository.
	src := filepath.Join(w.dir, "src")
	gitIn(t, w.dir, "clone", "--quiet", strings.Replace(w.control, "://", "://x-access-token:"+env["GITHUB_TOKEN"]+"@", 1), src)
	files := map[string]string{
		// timeout and grace are short so that a dispatch whose agent was
		// killed with its reconciler is called interrupted within seconds.
		"gallivant.yaml": "defaults:\n  repo: acme/api\n  escalate_after: 9\nexecutor:\n  kind: command\n  command: [\"sh\", \"-c\", \"exec sh \\\"$AGENT\\\"\"]\n  timeout: 8s\n  grace: 3s\n" +
			// The agent inherits only what executor.env names (issue 11).
			"  env: [PATH, HOME, AGENT, RUNLOG, AGENT_SLEEP, GIT_CONFIG_GLOBAL, GIT_AUTHOR_NAME, GIT_AUTHOR_EMAIL, GIT_COMMITTER_NAME, GIT_COMMITTER_EMAIL]\n",
	}
	for i := 0; i < p.specs; i++ {
		name := fmt.Sprintf("spec%02d", i)
		files["specs/"+name+".md"] = fmt.Sprintf("# %s\n\n## Acceptance criteria\n1. %s one.\n2. %s two.\n3. %s three.\n", name, name, name, name)
	}
	for path, s := range files {
		os.MkdirAll(filepath.Dir(filepath.Join(src, path)), 0o755)
		os.WriteFile(filepath.Join(src, path), []byte(s), 0o644)
	}
	gitIn(t, src, "add", "-A")
	gitIn(t, src, "commit", "--quiet", "-m", "Approve specs")
	gitIn(t, src, "push", "--quiet", "origin", "HEAD:main")
	w.observe = src
	return w
}

// proc is one reconciler process.
type proc struct {
	name           string
	cmd            *exec.Cmd
	stdout, stderr bytes.Buffer
	killed         string // "", "reconciler" or "tree"
	during         string // "agent run" when an agent was running, else "reconciler" (fetch, commits, pushes, GitHub)
	exited         chan struct{}
	err            error
}

// start runs one `gallivant reconcile` pass with the slot's cache.
func (w *world) start(slot, gen int) *proc {
	p := &proc{name: fmt.Sprintf("slot%d-gen%03d", slot, gen), exited: make(chan struct{})}
	p.cmd = exec.Command(bin, "reconcile", "--control", w.control, "--format", "json")
	// A fresh slice: appending to the shared one would let concurrent
	// starts overwrite each other's variables.
	// The last slot shares the first one's cache: two processes on one
	// cache directory take separate control clones and share the agent
	// checkouts under their locks.
	cache := slot
	if slot == 3 {
		cache = 0
	}
	p.cmd.Env = append(slices.Clip(w.env), "GALLIVANT_CACHE="+filepath.Join(w.dir, fmt.Sprintf("cache%d", cache)), "GALLIVANT_AUTHOR_NAME="+p.name)
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

// kill sends SIGKILL to the reconciler alone (its agent, in its own
// process group, lives on as an orphan) or to its whole process tree.
func (p *proc) kill(tree bool) {
	pids := []int{p.cmd.Process.Pid}
	below := descendants(p.cmd.Process.Pid)
	p.during = "reconciler"
	if p.agentRunning() {
		p.during = "agent run"
	}
	if tree {
		pids = append(pids, below...)
		p.killed = "tree"
	} else {
		p.killed = "reconciler"
	}
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	<-p.exited
}

// killPass kills a pass at a kill point unless that could take an
// outstanding dispatch past the loop's rerun budget: the product stops a
// dispatch `interrupted` for a person when it is interrupted again after
// ledger.MaxReruns reruns (a crash loop must not run an agent forever), so
// a schedule that kills the same dispatch more often than that is
// answered by a stop this suite would fail on, correctly. The check and the
// kill hold killMu, so at most this pass's own progress (one more rerun)
// falls between them; kills stop once any dispatch has had
// MaxReruns-1 reruns, which leaves that one. A spared pass runs to its end
// and spends the kill point; spared reports it.
func (w *world) killPass(p *proc, tree bool) (spared bool) {
	w.killMu.Lock()
	defer w.killMu.Unlock()
	if !w.mayInterrupt() {
		w.spared++
		<-p.exited
		return true
	}
	p.kill(tree)
	return false
}

// mayInterrupt reports whether every outstanding dispatch on the control
// branch has had fewer than ledger.MaxReruns-1 reruns; false when the
// branch cannot be read.
func (w *world) mayInterrupt() bool {
	if w.watch == "" {
		w.watch = filepath.Join(w.dir, "watch")
		if _, err := gitErr(w.dir, "clone", "--quiet", "--no-checkout", w.control, w.watch); err != nil {
			w.watch = ""
			return false
		}
	} else if _, err := gitErr(w.watch, "fetch", "--quiet", "origin"); err != nil {
		return false
	}
	names, err := gitErr(w.watch, "ls-tree", "--name-only", "origin/main", "plans/")
	if err != nil {
		return false
	}
	for _, path := range strings.Fields(names) {
		data, err := gitErr(w.watch, "show", "origin/main:"+path)
		if err != nil {
			return false
		}
		l, ds := ledger.Parse(path, []byte(data+"\n"))
		if ledger.Fatal(ds) {
			return false
		}
		if !l.Delivery.DispatchedAt.IsZero() && l.Delivery.Reruns >= ledger.MaxReruns-1 {
			return false
		}
	}
	return true
}

// awaitAgent waits until an agent runs under the pass; false when the pass
// ended first.
func (p *proc) awaitAgent() bool {
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-p.exited:
			return false
		case <-tick.C:
			if p.agentRunning() {
				return true
			}
		}
	}
}

func (p *proc) agentRunning() bool {
	for _, pid := range descendants(p.cmd.Process.Pid) {
		if cmdline, _ := os.ReadFile(fmt.Sprintf("/proc/%d/cmdline", pid)); bytes.Contains(cmdline, []byte("agent.sh")) {
			return true
		}
	}
	return false
}

// procStat is one process of /proc: its pid, parent and process group.
type procStat struct{ pid, ppid, pgrp int }

// procStats reads every process's stat line from /proc.
func procStats() []procStat {
	var out []procStat
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		stat, err := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if err != nil {
			continue
		}
		// pid (comm) state ppid pgrp ...: comm may hold spaces, so cut
		// after the last ')'.
		f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
		if len(f) < 3 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		pgrp, _ := strconv.Atoi(f[2])
		out = append(out, procStat{pid: pid, ppid: ppid, pgrp: pgrp})
	}
	return out
}

// groupMembersWith lists, from /proc, the processes in one of the process
// groups pgids whose environment holds the entry env.
func groupMembersWith(pgids []int, env string) []int {
	groups := map[int]bool{}
	for _, g := range pgids {
		if g > 1 {
			groups[g] = true
		}
	}
	var out []int
	for _, p := range procStats() {
		if !groups[p.pgrp] {
			continue
		}
		environ, _ := os.ReadFile(filepath.Join("/proc", strconv.Itoa(p.pid), "environ"))
		if slices.ContainsFunc(bytes.Split(environ, []byte{0}), func(kv []byte) bool { return string(kv) == env }) {
			out = append(out, p.pid)
		}
	}
	return out
}

// descendants lists every process below pid, from /proc.
func descendants(pid int) []int {
	children := map[int][]int{}
	for _, p := range procStats() {
		children[p.ppid] = append(children[p.ppid], p.pid)
	}
	var out []int
	queue := []int{pid}
	for len(queue) > 0 {
		next := queue[0]
		queue = queue[1:]
		for _, c := range children[next] {
			out = append(out, c)
			queue = append(queue, c)
		}
	}
	return out
}

// ledgers reads every ledger at the control branch head.
func (w *world) ledgers() (map[string]*ledger.Ledger, string) {
	w.t.Helper()
	for i := 0; ; i++ {
		if _, err := gitErr(w.observe, "fetch", "--quiet", "origin"); err == nil {
			break
		} else if i == 5 {
			w.t.Fatalf("fetch the control repository: %v", err)
		}
		time.Sleep(200 * time.Millisecond)
	}
	head := gitIn(w.t, w.observe, "rev-parse", "origin/main")
	out := map[string]*ledger.Ledger{}
	names := gitIn(w.t, w.observe, "ls-tree", "--name-only", "origin/main", "plans/")
	for _, path := range strings.Fields(names) {
		data := gitIn(w.t, w.observe, "show", "origin/main:"+path)
		l, ds := ledger.Parse(path, []byte(data+"\n"))
		if ledger.Fatal(ds) {
			w.t.Fatalf("%s at %s does not parse: %v", path, head, ds)
		}
		out[path] = l
	}
	return out, head
}

var (
	shaRE  = regexp.MustCompile(`\b[0-9a-f]{7,40}\b`)
	timeRE = regexp.MustCompile(`\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ`)
	prRE   = regexp.MustCompile(`acme/api#\d+`)
)

// normalized renders the ledgers without what differs between two equal
// runs: commit SHAs, times, pull request numbers and how long each evidence
// replay took.
func normalized(ls map[string]*ledger.Ledger) map[string]string {
	out := map[string]string{}
	for p, l := range ls {
		l = l.Clone()
		for i := range l.Proofs {
			l.Proofs[i].Duration = 0
		}
		s := string(ledger.Format(l))
		s = shaRE.ReplaceAllString(s, "<sha>")
		s = timeRE.ReplaceAllString(s, "<time>")
		out[p] = prRE.ReplaceAllString(s, "acme/api#<n>")
	}
	return out
}

// runs reads the agent log: per spec and pending tuple, how many attempts
// started and how many finished with their commit.
func (w *world) runs() (started, done map[string]int, pids []int) {
	started, done = map[string]int{}, map[string]int{}
	data, _ := os.ReadFile(w.runlog)
	for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 {
			continue
		}
		switch f[0] {
		case "start":
			started[f[2]]++
			pid, _ := strconv.Atoi(f[1])
			pids = append(pids, pid)
		case "done":
			done[f[2]]++
		}
	}
	return started, done, pids
}

// reference runs the same world with one reconciler and no kills until a
// pass has nothing to do, and returns the end state.
func reference(t *testing.T, p profile) map[string]string {
	w := newWorld(t, p)
	for i := 0; i < 60; i++ {
		pr := w.start(0, i)
		<-pr.exited
		if pr.err != nil {
			t.Fatalf("reference pass %d: %v\n%s", i, pr.err, pr.stderr.String())
		}
		var rep struct{ Transitions []json.RawMessage }
		if err := json.Unmarshal(pr.stdout.Bytes(), &rep); err != nil {
			t.Fatalf("reference pass %d: %v\n%s", i, err, pr.stdout.String())
		}
		if len(rep.Transitions) == 0 {
			ls, _ := w.ledgers()
			return normalized(ls)
		}
	}
	t.Fatal("the reference run did not settle")
	return nil
}

// plan is one slot's sequence of passes: each is killed after its delay,
// or (zero) runs to its end.
type plan struct {
	delay time.Duration
	tree  bool
	// agent counts delay from the moment an agent starts under the pass
	// (a pass that starts none runs to its end).
	agent bool
	// frac places the kill point within the next pass's expected life
	// when this pass ends before delay.
	frac float64
}

// agentSleep is how long the agent works on each dispatch.
const agentSleep = 2 * time.Second

// kills deals p.kills kill points over the slots, seeded: a third land in
// the first 300ms of a pass (the control fetch, the first commits and the
// write-ahead push), a third anywhere in its first 2.5s, a third during an
// agent run (up to its commit); half kill the whole tree.
func kills(p profile, rng *rand.Rand) [][]plan {
	plans := make([][]plan, p.slots)
	for k := 0; k < p.kills; k++ {
		s := k % p.slots
		var pl plan
		switch rng.IntN(3) {
		case 0:
			pl.delay = time.Duration(1 + rng.Int64N(int64(300*time.Millisecond)))
		case 1:
			pl.delay = time.Duration(1 + rng.Int64N(int64(2500*time.Millisecond)))
		case 2:
			pl.agent = true
			pl.delay = time.Duration(1 + rng.Int64N(int64(agentSleep)))
		}
		pl.tree = rng.IntN(2) == 0
		pl.frac = rng.Float64()
		plans[s] = append(plans[s], pl)
		if rng.IntN(3) == 0 {
			plans[s] = append(plans[s], plan{}) // a pass that runs to its end
		}
	}
	return plans
}

func TestCrashAndConcurrency(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the suite finds agent processes through /proc")
	}
	if testing.Short() {
		t.Skip("a black-box run of a minute or two; not with -short")
	}
	p := short()
	if os.Getenv("GALLIVANT_SOAK") != "" {
		p = soak()
	}
	seed := uint64(time.Now().UnixNano())
	if s := os.Getenv("GALLIVANT_E2E_SEED"); s != "" {
		v, err := strconv.ParseUint(s, 10, 64)
		if err != nil {
			t.Fatalf("GALLIVANT_E2E_SEED: %v", err)
		}
		seed = v
	}
	t.Logf("seed %d (rerun with GALLIVANT_E2E_SEED=%d); %d kill points, %d reconcilers staggered by %s, %d specs", seed, seed, p.kills, p.slots, p.stagger, p.specs)
	fmt.Fprintf(os.Stderr, "e2e: seed %d (GALLIVANT_E2E_SEED)\n", seed)
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	plans := kills(p, rng)

	var want map[string]string
	refDone := make(chan struct{})
	go func() {
		defer close(refDone)
		want = reference(t, p)
	}()

	w := newWorld(t, p)
	t.Cleanup(func() {
		if t.Failed() {
			w.dump()
		}
		// Orphaned agents end by themselves within seconds; make sure.
		// Only this world's: an agent's process group id may by now be
		// another process group's (pids wrap within minutes on a busy
		// machine), so each member is killed only if its environment
		// names this world's run log.
		_, _, pids := w.runs()
		for _, pid := range groupMembersWith(pids, "RUNLOG="+w.runlog) {
			syscall.Kill(pid, syscall.SIGKILL)
		}
	})
	start := time.Now()
	deadline := start.Add(p.chaos)

	// Chaos: every slot runs its plan, restarting at once after each pass.
	var wg sync.WaitGroup
	gens := make([]int, p.slots)
	for s := 0; s < p.slots; s++ {
		wg.Add(1)
		go func(s int) {
			defer wg.Done()
			time.Sleep(time.Duration(s) * p.stagger)
			for _, step := range plans[s] {
				if time.Now().After(deadline) {
					return
				}
				pr := w.start(s, gens[s])
				gens[s]++
				if step.delay == 0 {
					<-pr.exited
					continue
				}
				// A kill point meant for an agent run waits for a pass that
				// starts one (a few passes at most).
				for try := 0; step.agent && !pr.awaitAgent(); try++ {
					if try == 4 || time.Now().After(deadline) {
						break
					}
					pr = w.start(s, gens[s])
					gens[s]++
				}
				// A pass that ends before its kill point passes the point on
				// to the next pass, scaled into the life the pass had (a few
				// passes at most).
				delay := step.delay
				spared := false
				for try := 0; ; try++ {
					began := time.Now()
					select {
					case <-pr.exited:
					case <-time.After(delay):
						spared = w.killPass(pr, step.tree)
					}
					if spared || pr.killed != "" || step.agent || try == 4 || time.Now().After(deadline) {
						break
					}
					delay = time.Duration(1 + step.frac*float64(time.Since(began)))
					pr = w.start(s, gens[s])
					gens[s]++
				}
			}
		}(s)
	}
	wg.Wait()
	<-refDone
	if t.Failed() {
		return
	}

	// Converge: clean passes on every slot, concurrently; no person
	// answers anything.
	deadline = time.Now().Add(p.converge)
	var got map[string]string
	for round := 0; ; round++ {
		ls, head := w.ledgers()
		got = normalized(ls)
		if cmp.Equal(want, got) {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no convergence %s after the last kill, at control %s (-want +got):\n%s", p.converge, head, cmp.Diff(want, got))
		}
		w.checkStops(ls)
		var rw sync.WaitGroup
		for s := 0; s < p.slots; s++ {
			rw.Add(1)
			go func(s int) {
				defer rw.Done()
				pr := w.start(s, gens[s])
				gens[s]++
				<-pr.exited
			}(s)
		}
		rw.Wait()
		time.Sleep(300 * time.Millisecond)
	}

	// No (row, attempt) ran to its end twice.
	started, done, _ := w.runs()
	for key, n := range done {
		if n > 1 {
			t.Errorf("%s ran to its end %d times", key, n)
		}
	}
	// Every process that exited reported exactly the transitions it
	// pushed; the control branch holds nothing else.
	w.checkReports()
	killed, during := map[string]int{}, map[string]int{}
	for _, pr := range w.procs {
		killed[pr.killed]++
		during[pr.during]++
	}
	msg := fmt.Sprintf("converged in %s: %d processes, %d of %d kill points hit a live pass (%d killed alone, %d with their tree; %d during an agent run, %d in the reconciler's own work), %d attempts started, %d finished, no stop answered by a person; %d kill points spared a dispatch at its rerun budget",
		time.Since(start).Round(time.Second), len(w.procs), killed["reconciler"]+killed["tree"], p.kills, killed["reconciler"], killed["tree"],
		during["agent run"], during["reconciler"], sum(started), sum(done), w.spared)
	t.Log(msg)
	fmt.Fprintln(os.Stderr, "e2e:", msg)
}

func sum(m map[string]int) int {
	n := 0
	for _, v := range m {
		n += v
	}
	return n
}

// checkStops fails the test on a stop a person would have to clear. An
// `interrupted` stop is the one a kill may cause for a while: a reconciler
// on another cache calls over a dispatch whose agent was killed with its
// reconciler, and the next pass on the cache holding the run record reruns
// it by itself. It must clear without help before the convergence deadline;
// nobody answers it here.
func (w *world) checkStops(ls map[string]*ledger.Ledger) {
	w.t.Helper()
	for path, l := range ls {
		reason, detail, stopped := l.Stop()
		if stopped && (reason != "interrupted" || l.Pending == nil) {
			w.t.Fatalf("%s stopped %s: %s\n%s", path, reason, detail, ledger.Format(l))
		}
	}
}

// checkReports compares what each process that was not killed printed
// with the loop: commits it authored on the control branch.
func (w *world) checkReports() {
	w.t.Helper()
	gitNet(w.t, w.observe, "fetch", "--quiet", "origin")
	authored := map[string]map[string]bool{}
	for _, line := range strings.Split(gitIn(w.t, w.observe, "log", "--format=%H %an %s", "origin/main"), "\n") {
		f := strings.SplitN(line, " ", 3)
		if len(f) < 3 || !strings.HasPrefix(f[2], "loop: ") {
			continue
		}
		if authored[f[1]] == nil {
			authored[f[1]] = map[string]bool{}
		}
		authored[f[1]][f[0]] = true
	}
	for _, pr := range w.procs {
		if pr.killed != "" {
			continue
		}
		reported := map[string]bool{}
		if pr.stdout.Len() > 0 {
			var rep struct {
				Transitions []struct{ Commit string }
			}
			if err := json.Unmarshal(pr.stdout.Bytes(), &rep); err != nil {
				w.t.Errorf("%s printed no report: %v\n%s", pr.name, err, pr.stdout.String())
				continue
			}
			for _, tr := range rep.Transitions {
				reported[tr.Commit] = true
			}
		}
		mine := authored[pr.name]
		if mine == nil {
			mine = map[string]bool{}
		}
		if diff := cmp.Diff(mine, reported); diff != "" {
			w.t.Errorf("%s (exit %v) reported transitions that differ from its commits on the control branch (-branch +reported):\n%s\nstderr:\n%s",
				pr.name, pr.err, diff, pr.stderr.String())
		}
	}
}

// dump writes the control history, the agent log and every process's
// output to $GALLIVANT_E2E_DUMP (a file) when it is set, for a failure's
// post-mortem.
func (w *world) dump() {
	path := os.Getenv("GALLIVANT_E2E_DUMP")
	if path == "" {
		w.t.Log("set GALLIVANT_E2E_DUMP=<file> to keep the control history, the agent log and every process's output (and GALLIVANT_E2E_KEEP=<dir> for the whole world)")
		return
	}
	var b strings.Builder
	gitErr(w.observe, "fetch", "--quiet", "origin")
	hist, _ := gitErr(w.observe, "log", "--reverse", "--format=%h %an %ad %s", "--date=format:%H:%M:%S", "origin/main")
	runs, _ := os.ReadFile(w.runlog)
	fmt.Fprintf(&b, "== control history\n%s\n== agent log\n%s\n", hist, runs)
	for _, pr := range w.procs {
		fmt.Fprintf(&b, "== %s killed=%q err=%v\n-- stdout\n%s\n-- stderr\n%s\n", pr.name, pr.killed, pr.err, pr.stdout.String(), pr.stderr.String())
	}
	os.WriteFile(path, []byte(b.String()), 0o644)
	if keep := os.Getenv("GALLIVANT_E2E_KEEP"); keep != "" {
		// The whole world (caches, run records, the sandbox's
		// repositories) for a failure's post-mortem.
		if out, err := exec.Command("cp", "-a", w.dir, keep).CombinedOutput(); err != nil {
			w.t.Logf("keep %s: %v\n%s", keep, err, out)
		}
	}
}
