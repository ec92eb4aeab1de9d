package main

import (
	"bytes"
	"io"
	"regexp"
	"runtime/debug"
	"testing"

	"github.com/gallivant/gallivant/reconcile"
	"github.com/google/go-cmp/cmp"
)

func TestPlural(t *testing.T) {
	for _, tc := range []struct {
		n    int
		want string
	}{{0, "0 transitions"}, {1, "1 transition"}, {2, "2 transitions"}} {
		if got := plural(tc.n, "transition", "transitions"); got != tc.want {
			t.Errorf("plural(%d) = %q, want %q", tc.n, got, tc.want)
		}
	}
}

func TestSummaryLine(t *testing.T) {
	const c = "0123456789abcdef"
	for _, tc := range []struct {
		name string
		mode outcome
		n    int
		want string
	}{
		{"applied", performed, 1, "control 0123456: 1 transition performed"},
		{"dry run", wouldPerform, 2, "control 0123456: would perform 2 transitions (dry run: nothing committed)"},
		{"diff", due, 1, "control 0123456: 1 transition due"},
		{"push failed", unrecorded, 3, "control 0123456: 3 transitions planned, none recorded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := summaryLine(c, tc.n, tc.mode); got != tc.want {
				t.Errorf("summaryLine = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestVersionOf(t *testing.T) {
	rev := []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}}
	for _, tc := range []struct {
		name string
		bi   debug.BuildInfo
		want string
	}{
		{"module version", debug.BuildInfo{Main: debug.Module{Version: "v1.2.3"}, Settings: rev}, "v1.2.3"},
		{"revision", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}, Settings: rev}, "devel-0123456789ab"},
		{"dirty revision", debug.BuildInfo{Settings: append(rev, debug.BuildSetting{Key: "vcs.modified", Value: "true"})}, "devel-0123456789ab-dirty"},
		{"nothing", debug.BuildInfo{Main: debug.Module{Version: "(devel)"}}, "devel"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := versionOf(&tc.bi); got != tc.want {
				t.Errorf("versionOf = %q, want %q", got, tc.want)
			}
		})
	}
}

func TestPrintReportOnATerminal(t *testing.T) {
	rep := &reconcile.Report{Control: "0123456789", Transitions: []reconcile.Transition{
		{Spec: "specs/a.md", Subject: "loop: seed ledger", Sentence: "Seeded 1 row (0 cut).", Commit: "c1"},
		{Spec: "specs/long-name.md", Subject: "loop: dispatch seed", Sentence: "Dispatched the seed.", Commit: "c2"},
	}}
	for _, tc := range []struct {
		name           string
		tty            bool
		mode           outcome
		wantOut, wantE string
	}{
		{"terminal: aligned columns", true, performed,
			"specs/a.md          loop: seed ledger    Seeded 1 row (0 cut).\nspecs/long-name.md  loop: dispatch seed  Dispatched the seed.\n",
			"control 0123456: 2 transitions performed\n"},
		{"pipe: one tab-separated line each", false, performed,
			"specs/a.md\tloop: seed ledger\tSeeded 1 row (0 cut).\nspecs/long-name.md\tloop: dispatch seed\tDispatched the seed.\n",
			"control 0123456: 2 transitions performed\n"},
		{"push failed: nothing called performed", true, unrecorded, "",
			"specs/a.md: not recorded: loop: seed ledger\nspecs/long-name.md: not recorded: loop: dispatch seed\ncontrol 0123456: 2 transitions planned, none recorded\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var out, errw bytes.Buffer
			a := &app{io: streams{Out: &out, Err: &errw, TTY: tc.tty}, env: func(string) string { return "" }}
			a.printReport(rep, "text", tc.mode)
			if diff := cmp.Diff(tc.wantOut, out.String()); diff != "" {
				t.Errorf("stdout (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(tc.wantE, errw.String()); diff != "" {
				t.Errorf("stderr (-want +got):\n%s", diff)
			}
		})
	}
}

func TestLogger(t *testing.T) {
	for _, tc := range []struct {
		name    string
		tty     bool
		verbose bool
		flag    string
		envFmt  string
		want    string // regexp; "" for no output
	}{
		{"terminal: silent", true, false, "", "", ""},
		{"terminal with -v: text", true, true, "", "", `^time=\S+ level=INFO msg=transition spec=specs/a.md\n$`},
		{"pipe: text", false, false, "", "", `^time=\S+ level=INFO msg=transition spec=specs/a.md\n$`},
		{"pipe, GALLIVANT_LOG_FORMAT=json", false, false, "", "json", `^\{"time":"[^"]+","level":"INFO","msg":"transition","spec":"specs/a.md"\}\n$`},
		{"--log-format wins over the environment", true, true, "text", "json", `^time=`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var errw bytes.Buffer
			env := map[string]string{"GALLIVANT_LOG_FORMAT": tc.envFmt}
			a := &app{io: streams{Out: io.Discard, Err: &errw, TTY: tc.tty}, env: func(k string) string { return env[k] }, verbose: tc.verbose, logFmt: tc.flag}
			a.logger().Info("transition", "spec", "specs/a.md")
			got := errw.String()
			if tc.want == "" {
				if got != "" {
					t.Errorf("logged %q on a terminal without -v", got)
				}
				return
			}
			if !regexp.MustCompile(tc.want).MatchString(got) {
				t.Errorf("logged %q, want %s", got, tc.want)
			}
		})
	}
}
