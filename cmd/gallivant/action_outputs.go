package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/parse"
	"github.com/gallivant/gallivant/reconcile"
)

// In GitHub Actions a pass also reports what stands after it: every
// stopped entry as a warning annotation on its ledger and in the job
// summary, and the step outputs transitions, stops, problems and report
// (the JSON report) that action.yml passes on.

// standingStops reads the entries that stand stopped at the control
// branch's head after the pass.
func standingStops(ctx context.Context, st *store.Store) ([]reconcile.EntryStatus, error) {
	snap, err := reconcile.Load(ctx, st)
	if err != nil {
		return nil, err
	}
	var out []reconcile.EntryStatus
	for _, es := range snap.Statuses() {
		if es.Stop != nil {
			out = append(out, es)
		}
	}
	return out, nil
}

// actionsAfterPass writes the standing stops' annotations and summary and
// the step outputs.
func (a *app) actionsAfterPass(ctx context.Context, st *store.Store, rep *reconcile.Report) {
	stops, err := standingStops(ctx, st)
	if err != nil {
		a.narrate(slog.LevelWarn, fmt.Sprintf("gallivant: cannot read the standing stops: %v", err), "standing stops not read", "error", err.Error())
	}
	_ = stopAnnotations(stops).WriteGitHub(a.io.Out)
	if path := a.env("GITHUB_STEP_SUMMARY"); path != "" && len(stops) > 0 {
		if err := appendTo(path, func(w io.Writer) error { writeStops(w, stops); return nil }); err != nil {
			a.narrate(slog.LevelError, fmt.Sprintf("gallivant: cannot write the job summary: %v", err), "job summary not written", "error", err.Error())
		}
	}
	if path := a.env("GITHUB_OUTPUT"); path != "" {
		if err := appendTo(path, func(w io.Writer) error { return writeOutputs(w, rep, len(stops)) }); err != nil {
			a.narrate(slog.LevelError, fmt.Sprintf("gallivant: cannot write the step outputs: %v", err), "step outputs not written", "error", err.Error())
		}
	}
}

// stopAnnotations are the standing stops as warnings on their ledgers.
func stopAnnotations(stops []reconcile.EntryStatus) parse.Diagnostics {
	var ds parse.Diagnostics
	for _, es := range stops {
		msg := fmt.Sprintf("%s stopped: %s", es.Spec, es.Stop.Reason)
		if es.Stop.Detail != "" {
			msg += " (" + es.Stop.Detail + ")"
		}
		if len(es.Stop.Clear) > 0 {
			msg += ". To clear it, add under ## Requests: " + strings.Join(es.Stop.Clear, " or ")
		}
		file := es.Ledger
		if file == "" {
			file = es.Spec
		}
		ds = append(ds, parse.Diagnostic{File: file, Line: 1, Col: 1, Severity: parse.SeverityWarning, Rule: "reconcile/stopped", Message: msg})
	}
	return ds
}

func writeStops(w io.Writer, stops []reconcile.EntryStatus) {
	fmt.Fprint(w, "\n### Standing stops\n\n| spec | stop | to clear it, add under `## Requests` of |\n|---|---|---|\n")
	for _, es := range stops {
		reason := mdCell(es.Stop.Reason)
		if es.Stop.Detail != "" {
			reason += ": " + mdCell(es.Stop.Detail)
		}
		var clear []string
		for _, c := range es.Stop.Clear {
			clear = append(clear, "`"+mdCell(c)+"`")
		}
		fmt.Fprintf(w, "| `%s` | %s | `%s`: %s |\n", es.Spec, reason, es.Ledger, strings.Join(clear, " or "))
	}
}

// writeOutputs writes the step outputs in GitHub's file format; the
// report is multi-line, between a delimiter no report can contain.
func writeOutputs(w io.Writer, rep *reconcile.Report, stops int) error {
	problems := 0
	for _, n := range rep.Notes {
		if n.Problem {
			problems++
		}
	}
	report, err := json.Marshal(jsonReport(rep))
	if err != nil {
		return err
	}
	b := make([]byte, 16)
	_, _ = rand.Read(b)
	delim := "gallivant_" + hex.EncodeToString(b)
	_, err = fmt.Fprintf(w, "transitions=%d\nstops=%d\nproblems=%d\nreport<<%s\n%s\n%s\n", len(rep.Transitions), stops, problems, delim, report, delim)
	return err
}

func appendTo(path string, write func(io.Writer) error) error {
	f, err := os.OpenFile(path, os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o644)
	if err != nil {
		return err
	}
	if err := write(f); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}
