package main

import (
	"fmt"
	"strings"
	"time"

	"github.com/gallivant/gallivant/internal/store"
	"github.com/gallivant/gallivant/ledger"
)

// logLines are the lines gallivant log shows of a ledger's commits
// (entries, newest first as the store gives them), oldest first: its
// loop: commits and, under --verify (verdicts set), a person's commit
// that has violations, marked. order holds each line's trailer names as
// written.
func logLines(entries []store.LogEntry, verify bool, verdicts map[string][]string) (out []logJSON, order [][]string) {
	for i := len(entries) - 1; i >= 0; i-- {
		e := entries[i]
		if vs, bad := verdicts[e.SHA]; !ledger.LoopAuthored(e.Subject) && !(bad && len(vs) > 0) {
			continue
		}
		j, names := logLine(e)
		if verify {
			markVerified(&j, verdicts)
		}
		out = append(out, j)
		order = append(order, names)
	}
	return out, order
}

// logLine is one commit's line: its time (UTC), subject and Gallivant-
// trailers but Spec and Dispatch, with the trailer names as written.
func logLine(e store.LogEntry) (logJSON, []string) {
	j := logJSON{Commit: e.SHA, Time: e.When.UTC().Format(time.RFC3339), Subject: e.Subject, Trailers: map[string]string{}}
	var names []string
	for _, t := range ledger.ParseTrailers(e.Message) {
		if t.Key == ledger.TrailerSpec || t.Key == ledger.TrailerDispatch {
			continue
		}
		k, v := strings.TrimPrefix(t.Key, "Gallivant-"), t.Value
		// A repeated trailer (one Proof a replayed row) keeps every
		// value: joined by a newline in the JSON map, each printed in
		// the text.
		if prev, ok := j.Trailers[k]; ok {
			v = prev + "\n" + v
		} else {
			names = append(names, k)
		}
		j.Trailers[k] = v
	}
	return j, names
}

// printLog writes log's lines as text, one per transition, the trailers
// in the order order gives.
func (a *app) printLog(out []logJSON, order [][]string) {
	for k, j := range out {
		when, _ := time.Parse(time.RFC3339, j.Time)
		fmt.Fprintf(a.io.Out, "%s %s %s", shortSHA(j.Commit), when.Format("2006-01-02 15:04"), j.Subject)
		if len(order[k]) > 0 {
			var trailers []string
			for _, name := range order[k] {
				for _, v := range strings.Split(j.Trailers[name], "\n") {
					trailers = append(trailers, name+"="+shortTrailer(v))
				}
			}
			fmt.Fprintf(a.io.Out, "  [%s]", strings.Join(trailers, " "))
		}
		fmt.Fprintln(a.io.Out, verifiedMark(j))
	}
}
