package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime/debug"
	"syscall"

	"github.com/spf13/cobra"
)

// Exit codes. They are decided in one place, exitCode.
const (
	exitOK       = 0
	exitFindings = 1 // check found errors, diff found due transitions, a pass could not complete
	exitUsage    = 2 // bad flags or arguments, unreadable input
)

// streams are the command's standard streams; tests use buffers.
type streams struct {
	In  io.Reader
	Out io.Writer
	Err io.Writer
}

func stdio() streams { return streams{In: os.Stdin, Out: os.Stdout, Err: os.Stderr} }

// env is how commands read the environment; tests pass a map.
type env func(string) string

// app carries what every command needs.
type app struct {
	io  streams
	env env
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
	return exitCode(err, s.Err)
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
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageError("%v (see %s --help)", err, c.CommandPath())
	})
	root.CompletionOptions.DisableDefaultCmd = true
	root.AddCommand(
		a.newCheckCmd(),
		a.newFmtCmd(),
		a.newSandboxCmd(),
		a.newReconcileCmd(),
		a.newDiffCmd(),
		a.newGatekeepCmd(),
		a.newStatusCmd(),
		a.newWhyCmd(),
		a.newLogCmd(),
		a.newTaskCmd(),
		a.newDaemonCmd(),
		a.newDemoCmd(),
		a.newVersionCmd(),
	)
	return root
}

// version returns the module version stamped by `go install`, or "devel".
func version() string {
	if bi, ok := debug.ReadBuildInfo(); ok && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		return bi.Main.Version
	}
	return "devel"
}

func (a *app) newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print gallivant's version",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			_, err := fmt.Fprintf(a.io.Out, "gallivant %s\n", version())
			return err
		},
	}
}
