package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/ghstandin/testserver"
	"github.com/gallivant/gallivant/reconcile"
)

// In GitHub Actions a pass writes the step outputs (transitions, stops,
// problems, report), and every standing stop is an annotation on its
// ledger and a row of the job summary — in the pass that stopped it and
// in every later one.
func TestActionsOutputsAndStandingStops(t *testing.T) {
	t.Parallel()
	gh := testserver.Start(t, "acme/api")
	ctl := filepath.Join(t.TempDir(), "ctl")
	os.MkdirAll(filepath.Join(ctl, "specs"), 0o755)
	os.WriteFile(filepath.Join(ctl, "gallivant.yaml"), []byte("defaults:\n  repo: acme/api\nexecutor:\n  kind: command\n  command: [\"true\"]\n  timeout: 1m\n"), 0o644)
	os.WriteFile(filepath.Join(ctl, "specs", "feature.md"), []byte("# Feature\n\n## Acceptance criteria\n1. The thing works.\n"), 0o644)
	gitCmd(t, ctl, "init", "--quiet", "--initial-branch=main")
	gitCmd(t, ctl, "add", "-A")
	gitCmd(t, ctl, "commit", "--quiet", "-m", "Approve specs")
	dir := t.TempDir()
	env := map[string]string{"GITHUB_API_URL": gh.APIURL(), "GITHUB_TOKEN": gh.MainToken(), "GALLIVANT_CACHE": filepath.Join(dir, "cache"),
		"GITHUB_ACTIONS": "true", "GITHUB_OUTPUT": filepath.Join(dir, "output"), "GITHUB_STEP_SUMMARY": filepath.Join(dir, "summary")}
	for pass := 1; pass <= 2; pass++ {
		os.Remove(env["GITHUB_OUTPUT"])
		os.Remove(env["GITHUB_STEP_SUMMARY"])
		var out, errb bytes.Buffer
		if code := run([]string{"reconcile", "--control", ctl}, streams{In: strings.NewReader(""), Out: &out, Err: &errb}, func(k string) string { return env[k] }); code != 0 {
			t.Fatalf("pass %d: exit %d\n%s", pass, code, errb.String())
		}
		if !strings.Contains(out.String(), "::warning file=plans/feature-ledger.md,line=1,col=1,title=reconcile/stopped::specs/feature.md stopped: interrupted") ||
			!strings.Contains(out.String(), "To clear it, add under ## Requests: resume | <why>") {
			t.Errorf("pass %d: no annotation for the standing stop:\n%s", pass, out.String())
		}
		summary, _ := os.ReadFile(env["GITHUB_STEP_SUMMARY"])
		if !strings.Contains(string(summary), "### Standing stops") || !strings.Contains(string(summary), "| `specs/feature.md` | interrupted") {
			t.Errorf("pass %d: the summary lacks the standing stop:\n%s", pass, summary)
		}
		outputs := parseOutputs(t, env["GITHUB_OUTPUT"])
		if outputs["stops"] != "1" || outputs["problems"] != "0" {
			t.Errorf("pass %d: outputs %q", pass, outputs)
		}
		var rep reconcile.Report
		if err := json.Unmarshal([]byte(outputs["report"]), &rep); err != nil {
			t.Fatalf("pass %d: report output: %v\n%s", pass, err, outputs["report"])
		}
		if got := outputs["transitions"]; got != strconv.Itoa(len(rep.Transitions)) {
			t.Errorf("pass %d: transitions output %s, report has %d", pass, got, len(rep.Transitions))
		}
		if pass == 1 && len(rep.Transitions) == 0 || pass == 2 && len(rep.Transitions) != 0 {
			t.Errorf("pass %d: %d transitions", pass, len(rep.Transitions))
		}
	}
}

// parseOutputs reads a GITHUB_OUTPUT file: name=value lines and
// name<<DELIM blocks.
func parseOutputs(t *testing.T, path string) map[string]string {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]string{}
	lines := strings.Split(string(data), "\n")
	for i := 0; i < len(lines); i++ {
		if name, delim, ok := strings.Cut(lines[i], "<<"); ok {
			var body []string
			for i++; i < len(lines) && lines[i] != delim; i++ {
				body = append(body, lines[i])
			}
			out[name] = strings.Join(body, "\n")
		} else if name, v, ok := strings.Cut(lines[i], "="); ok {
			out[name] = v
		}
	}
	return out
}
