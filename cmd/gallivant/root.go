package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/gallivant/gallivant/internal/daemon"
	"github.com/gallivant/gallivant/internal/githubapi"
	"github.com/spf13/cobra"
	"golang.org/x/term"
)

// Exit codes (docs/cli.md, "Exit codes"). The process exit status is
// decided in one place, exitCode; a pass's outcome in one place, passExit.
const (
	exitOK       = 0
	exitFindings = 1 // the command ran and found a problem: check errors, a pass entry's problem
	exitUsage    = 2 // bad flags or arguments, unreadable input
	// exitCannotRun shares 2 with usage errors: in both cases the command
	// did not do its job and a person must fix something before retrying.
	exitCannotRun = 2
)

// streams are the command's standard streams; tests use buffers.
type streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
	// TTY reports that Out is a terminal: human output is aligned and
	// logs are written only with -v.
	TTY bool
	// ErrTTY reports that Err is a terminal: agents' progress is a live
	// block there (progress.go); ErrWidth is its width in columns.
	ErrTTY   bool
	ErrWidth func() int
}

func stdio() streams {
	return streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr, TTY: isTerminal(os.Stdout), ErrTTY: isTerminal(os.Stderr),
		ErrWidth: func() int {
			w, _, err := term.GetSize(int(os.Stderr.Fd()))
			if err != nil {
				return 0
			}
			return w
		}}
}

// env is how commands read the environment; tests pass a map.
type env func(string) string

// app carries what every command needs.
type app struct {
	io  streams
	env env
	// verbose (-v) writes logs to standard error even on a terminal.
	verbose bool
	// logFmt is --log-format; "" defers to $GALLIVANT_LOG_FORMAT.
	logFmt string
	// metrics, set by daemon --listen, instruments the GitHub transport
	// and the agent runs of the reconciler wired after it.
	metrics *daemon.Metrics
	// apps are the GitHub App token sources made so far (appauth.go), by
	// App, API, repository and installation, kept for the process.
	apps map[string]*githubapi.AppTokens
	// narrator writes narration as JSON under --log-format json (narrate).
	narrator *slog.Logger
	// keepGoodConfig makes passes of an invalid gallivant.yaml keep the
	// last good configuration (the daemon, internal/daemon/config.go).
	keepGoodConfig bool
	// quiet (--quiet) turns off the agents' progress lines.
	quiet bool
	// live, set by daemon --listen, keeps the running agents' output for
	// the dashboard.
	live *daemon.LiveRuns
	// board shows the running agents' progress; nil until a command
	// executor is wired (progress.go).
	board *progressBoard
}

// exitError carries an exit code. A nil err means the command already said
// everything it had to say.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return fmt.Sprintf("exit %d", e.code)
	}
	return e.err.Error()
}

func (e *exitError) Unwrap() error { return e.err }

// silent returns an error that exits with code without printing anything.
func silent(code int) error { return &exitError{code: code} }

// usageError marks an error as the caller's mistake (exit 2).
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

func run(args []string, s streams, getenv env) int {
	a := &app{io: s, env: getenv}
	root := a.newRootCmd()
	root.SetArgs(args)
	root.SetIn(s.In)
	root.SetOut(s.Out)
	root.SetErr(s.Err)
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	err := root.ExecuteContext(ctx)
	if err != nil && a.jsonLogs() {
		return exitCodeJSON(err, s.Err)
	}
	return exitCode(err, s.Err)
}

// exitCodeJSON is exitCode under --log-format json: the error is one JSON
// record (msg "command failed", the error under "error", the status under
// "exit").
func exitCodeJSON(err error, stderr io.Writer) int {
	code := exitCode(err, io.Discard)
	var ee *exitError
	if errors.As(err, &ee) && ee.err == nil {
		return code
	}
	slog.New(slog.NewJSONHandler(stderr, nil)).Error("command failed", "error", err.Error(), "exit", code)
	return code
}

// exitCode maps a command's error to the process exit code and prints it.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	var ee *exitError
	if errors.As(err, &ee) {
		if ee.err != nil {
			fmt.Fprintf(stderr, "gallivant: %v\n", ee.err)
		}
		return ee.code
	}
	fmt.Fprintf(stderr, "gallivant: %v\n", err)
	return exitUsage
}

func (a *app) newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:   "gallivant",
		Short: "GitOps reconciler for agent-driven software delivery",
		Long: `gallivant reads specs, chains and plans kept as markdown in a git control
repository, drives coding agents through acceptance-criteria ledgers, and
records every admitted transition as a loop: commit.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version(),
	}
	root.SetVersionTemplate("gallivant {{.Version}}\n")
	root.PersistentFlags().BoolVarP(&a.verbose, "verbose", "v", false, "write logs to standard error even when standard output is a terminal, and stream each agent's output there, prefixed by spec and row")
	root.PersistentFlags().BoolVarP(&a.quiet, "quiet", "q", false, "print no progress lines while agents run")
	root.PersistentFlags().StringVar(&a.logFmt, "log-format", "", "log format: text or json (default $GALLIVANT_LOG_FORMAT, else text)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error {
		_, err := a.logFormat()
		return err
	}
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("%v (see %s --help)", err, c.CommandPath())
	})
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		a.newInitCmd(),
		a.newCheckCmd(),
		a.newFmtCmd(),
		a.newSandboxCmd(),
		a.newReconcileCmd(),
		a.newDiffCmd(),
		a.newGatekeepCmd(),
		a.newStatusCmd(),
		a.newWhyCmd(),
		a.newProveCmd(),
		a.newLogCmd(),
		a.newVerifyCmd(),
		a.newLessonsCmd(),
		a.newTaskCmd(),
		a.newDaemonCmd(),
		a.newDoctorCmd(),
		a.newDemoCmd(),
		a.newVersionCmd(),
		a.newCompletionCmd(),
	)
	return root
}

// version returns the version a release build stamped (stamp.go), else
// the module version stamped by `go install module@version`;
// go build in a checkout stamps a pseudo-version itself; a binary built
// with -buildvcs but no version gets devel-<12 hex digits of the revision>
// ("-dirty" when the tree had uncommitted changes); "devel" only when the
// binary carries neither (go run, go test).
func version() string {
	if stampVersion != "" {
		return stampVersion
	}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "devel"
	}
	return versionOf(bi)
}

func versionOf(bi *debug.BuildInfo) string {
	if v := bi.Main.Version; v != "" && v != "(devel)" {
		return v
	}
	var rev string
	dirty := false
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			dirty = s.Value == "true"
		}
	}
	if rev == "" {
		return "devel"
	}
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if dirty {
		return "devel-" + rev + "-dirty"
	}
	return "devel-" + rev
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gallivant's version",
		Long: `version prints the version a release binary was built as, with its
commit and build date; else the module version it was installed at
(go install github.com/gallivant/gallivant/cmd/gallivant@v1.2.3), else the
pseudo-version or VCS revision the binary was built from, else devel.`,
		Example: `  gallivant version`,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.io.Out, "gallivant %s\n", versionLine())
			return err
		},
	}
}
