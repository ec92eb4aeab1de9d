package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"net/http/httptest"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/gallivant/gallivant/internal/leakcheck"
	"github.com/gallivant/gallivant/internal/testgit"
	"github.com/google/go-github/v66/github"
	"github.com/rogpeppe/go-internal/testscript"
)

var update = flag.Bool("update", false, "update testscript cmp sections")

// gitEnv is internal/testgit's environment, for the scripts' own.
var gitEnv []string

// TestMain runs the tests (or, re-run by a script, gallivant) with the
// tests' git using a template of one empty hooks directory and no
// automatic maintenance (internal/testgit), and fails them when a
// goroutine outlives them.
func TestMain(m *testing.M) {
	env, cleanup, err := testgit.Setup()
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(2)
	}
	gitEnv = env
	testscript.Main(cleanupAfter{leakcheck.Checked{M: m}, cleanup}, map[string]func(){"gallivant": main})
}

// cleanupAfter runs m, then cleanup.
type cleanupAfter struct {
	m       interface{ Run() int }
	cleanup func()
}

func (c cleanupAfter) Run() int {
	defer c.cleanup()
	return c.m.Run()
}

func TestScripts(t *testing.T) {
	t.Parallel()
	testscript.Run(t, testscript.Params{
		Dir:                 "testdata/script",
		RequireExplicitExec: true,
		RequireUniqueNames:  true,
		UpdateScripts:       *update,
		Setup: func(env *testscript.Env) error {
			// Scripts must not inherit the CI runner's GitHub Actions mode,
			// tokens or git configuration.
			for _, k := range []string{"GITHUB_ACTIONS", "GITHUB_TOKEN", "GH_TOKEN", "GITHUB_API_URL"} {
				env.Setenv(k, "")
			}
			env.Setenv("GALLIVANT_CACHE", env.WorkDir+"/.cache")
			env.Setenv("GALLIVANT_MERGE_POLL", "10ms")
			env.Setenv("GIT_CONFIG_GLOBAL", "/dev/null")
			env.Setenv("GIT_CONFIG_NOSYSTEM", "1")
			for _, kv := range gitEnv {
				k, v, _ := strings.Cut(kv, "=")
				env.Setenv(k, v)
			}
			for _, k := range []string{"GIT_AUTHOR_NAME", "GIT_COMMITTER_NAME"} {
				env.Setenv(k, "Script Person")
			}
			for _, k := range []string{"GIT_AUTHOR_EMAIL", "GIT_COMMITTER_EMAIL"} {
				env.Setenv(k, "person@example.com")
			}
			return nil
		},
		Cmds: map[string]func(ts *testscript.TestScript, neg bool, args []string){
			"exitcode":   cmdExitcode,
			"github":     cmdGitHub,
			"gitrepo":    cmdGitRepo,
			"ghstatus":   cmdGHStatus,
			"freeport":   cmdFreePort,
			"httpget":    cmdHTTPGet,
			"ghcopypr":   cmdGHCopyPR,
			"yamlget":    cmdYAMLGet,
			"ghapp":      cmdGHApp,
			"ghrequests": cmdGHRequests,
			"ghtokens":   cmdGHAppTokens,
			"standins":   cmdStandins,
			"sandboxenv": cmdSandboxEnv,
			"ghapi":      cmdGHAPI,
		},
	})
}

// cmdGitHub starts the GitHub stand-in in the test process with the named
// repositories and points the script at it: `github owner/name...` sets
// GITHUB_API_URL and GITHUB_TOKEN.
func cmdGitHub(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) == 0 {
		ts.Fatalf("usage: github owner/name...")
	}
	s, err := ghstandin.New(ghstandin.Options{Dir: ts.MkAbs(".github-state")})
	if err != nil {
		ts.Fatalf("github: %v", err)
	}
	srv := httptest.NewServer(s.Handler())
	ts.Defer(srv.Close)
	s.SetURL(srv.URL)
	for _, r := range args {
		if err := s.CreateRepo(r, "main"); err != nil {
			ts.Fatalf("github: %v", err)
		}
	}
	servers.Store(ts, s)
	ts.Setenv("GITHUB_API_URL", s.APIURL())
	ts.Setenv("GITHUB_TOKEN", s.MainToken())
	ts.Setenv("GIT_URL", srv.URL)
	// What a person pushes with: git over HTTP needs a token to push.
	ts.Setenv("GIT_PUSH_URL", strings.Replace(srv.URL, "://", "://x-access-token:"+s.MainToken()+"@", 1))
}

// cmdGitRepo turns a directory of the script into a git repository with
// one commit of its files: `gitrepo dir`.
func cmdGitRepo(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: gitrepo dir")
	}
	dir := ts.MkAbs(args[0])
	for _, a := range [][]string{{"init", "--quiet", "--initial-branch=main"}, {"add", "-A"}, {"commit", "--quiet", "-m", "Approve specs"}} {
		cmd := exec.Command("git", a...)
		cmd.Dir = dir
		cmd.Env = append(os.Environ(), "GIT_CONFIG_GLOBAL=/dev/null", "GIT_AUTHOR_NAME=p", "GIT_AUTHOR_EMAIL=p@x", "GIT_COMMITTER_NAME=p", "GIT_COMMITTER_EMAIL=p@x")
		if out, err := cmd.CombinedOutput(); err != nil {
			ts.Fatalf("git %v: %v\n%s", a, err, out)
		}
	}
}

// cmdExitcode runs `exitcode N prog args...` and fails unless prog exits with
// status N. Its stdout and stderr stay available to later stdout/stderr checks.
func cmdExitcode(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) < 2 {
		ts.Fatalf("usage: exitcode N prog [args...]")
	}
	want, err := strconv.Atoi(args[0])
	if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	err = ts.Exec(args[1], args[2:]...)
	got := 0
	var ee *exec.ExitError
	if errors.As(err, &ee) {
		got = ee.ExitCode()
	} else if err != nil {
		ts.Fatalf("exitcode: %v", err)
	}
	if got != want {
		ts.Fatalf("%s exited with status %d, want %d", args[1], got, want)
	}
}

// servers holds each script's GitHub stand-in for the commands that act on
// it as CI or a person would.
var servers sync.Map // *testscript.TestScript → *ghstandin.Server

// cmdGHStatus posts a commit status as CI would: `ghstatus owner/name
// branch context state`.
func cmdGHStatus(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := servers.Load(ts)
	if neg || len(args) != 4 || !ok {
		ts.Fatalf("usage: ghstatus owner/name branch context state (after github)")
	}
	s := v.(*ghstandin.Server)
	owner, name, _ := strings.Cut(args[0], "/")
	c := s.Client("ci-bot")
	ref, _, err := c.Git.GetRef(context.Background(), owner, name, "heads/"+args[1])
	if err != nil {
		ts.Fatalf("ghstatus: %v", err)
	}
	if _, _, err := c.Repositories.CreateStatus(context.Background(), owner, name, ref.GetObject().GetSHA(),
		&github.RepoStatus{Context: github.String(args[2]), State: github.String(args[3])}); err != nil {
		ts.Fatalf("ghstatus: %v", err)
	}
}
