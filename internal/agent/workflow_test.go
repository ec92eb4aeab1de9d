package agent

import (
	"errors"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseWorkflowDispatch(t *testing.T) {
	tests := []struct {
		name, file string
		want       WorkflowDispatch
		err        bool
	}{
		{"a word", "on: workflow_dispatch\n", WorkflowDispatch{Dispatchable: true}, false},
		{"a list", "on: [push, workflow_dispatch]\n", WorkflowDispatch{Dispatchable: true}, false},
		{"a map without inputs", "on:\n  workflow_dispatch:\n  push:\n", WorkflowDispatch{Dispatchable: true, Inputs: map[string]WorkflowInput{}}, false},
		{"inputs", "on:\n  workflow_dispatch:\n    inputs:\n      a: {required: true}\n      b: {required: true, default: x}\n      c: {}\n",
			WorkflowDispatch{Dispatchable: true, Inputs: map[string]WorkflowInput{"a": {Required: true}, "b": {Required: true, HasDefault: true}, "c": {}}}, false},
		{"an empty default is a default", "on:\n  workflow_dispatch:\n    inputs:\n      a: {required: true, default: \"\"}\n",
			WorkflowDispatch{Dispatchable: true, Inputs: map[string]WorkflowInput{"a": {Required: true, HasDefault: true}}}, false},
		{"no trigger", "on: [push]\n", WorkflowDispatch{}, false},
		{"no on at all", "name: x\n", WorkflowDispatch{}, false},
		{"not YAML", "on: [\n", WorkflowDispatch{}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := ParseWorkflowDispatch([]byte(tc.file))
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func FuzzParseWorkflowDispatch(f *testing.F) {
	f.Add([]byte("on: workflow_dispatch\n"))
	f.Add([]byte("on:\n  workflow_dispatch:\n    inputs:\n      a: {required: true}\n"))
	f.Add([]byte("on:\n  workflow_dispatch:\n    inputs: [1, 2]\n"))
	f.Add([]byte(docsWorkflow(f)))
	f.Fuzz(func(t *testing.T, data []byte) {
		wd, err := ParseWorkflowDispatch(data)
		if err != nil && wd.Dispatchable {
			t.Errorf("an error with a dispatchable result")
		}
	})
}

// docsWorkflow returns the agent workflow docs/reconcile.md shows.
func docsWorkflow(t testing.TB) string {
	t.Helper()
	data, err := os.ReadFile("../../docs/reconcile.md")
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range regexp.MustCompile("(?s)```yaml\n(.*?)```").FindAllStringSubmatch(string(data), -1) {
		if strings.Contains(m[1], "workflow_dispatch:") {
			return m[1]
		}
	}
	t.Fatal("docs/reconcile.md shows no workflow_dispatch workflow")
	return ""
}

// The workflow in the docs declares every input gallivant sends, and
// requires nothing gallivant leaves out on any kind of run.
func TestDocsWorkflowDeclaresEveryInput(t *testing.T) {
	wd, err := ParseWorkflowDispatch([]byte(docsWorkflow(t)))
	if err != nil {
		t.Fatal(err)
	}
	row := map[string]string{"control": "c", "spec": "s", "ledger": "l", "branch": "b", "target": "1", "pending": "p", "iteration": "0"}
	round := map[string]string{"control": "c", "spec": "s", "ledger": "l", "branch": "b", "target": "round", "pending": "", "iteration": "0", "round": "1"}
	for name, inputs := range map[string]map[string]string{"row": row, "round": round} {
		if err := wd.check("acme/api", "agent.yml", "main", inputs); err != nil {
			t.Errorf("%s run: %v", name, err)
		}
	}
}

func TestWorkflowCheck(t *testing.T) {
	all := map[string]WorkflowInput{}
	for _, n := range workflowInputs {
		all[n] = WorkflowInput{}
	}
	sent := map[string]string{"control": "c"}
	tests := []struct {
		name string
		wd   WorkflowDispatch
		want string // "" for no refusal
	}{
		{"declares everything", WorkflowDispatch{Dispatchable: true, Inputs: all}, ""},
		{"no trigger", WorkflowDispatch{}, "workflow agent.yml in acme/api (on main) has no workflow_dispatch trigger; it must declare workflow_dispatch with the inputs control, spec, ledger, branch, target, pending, iteration, round, model"},
		{"lacks round and model", WorkflowDispatch{Dispatchable: true, Inputs: without(all, "round", "model")},
			"workflow agent.yml in acme/api (on main) must declare the workflow_dispatch inputs round, model"},
		{"requires an input gallivant does not send", WorkflowDispatch{Dispatchable: true, Inputs: with(all, "token", WorkflowInput{Required: true})},
			"workflow agent.yml in acme/api (on main) requires inputs gallivant does not send (token); give them a default or make them optional"},
		{"requires one with a default", WorkflowDispatch{Dispatchable: true, Inputs: with(all, "token", WorkflowInput{Required: true, HasDefault: true})}, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			err := tc.wd.check("acme/api", "agent.yml", "main", sent)
			got := ""
			if err != nil {
				got = err.Error()
				var we *WorkflowError
				if !errors.As(err, &we) {
					t.Errorf("error %T, want *WorkflowError", err)
				}
			}
			if got != tc.want {
				t.Errorf("check = %q, want %q", got, tc.want)
			}
		})
	}
}

func without(m map[string]WorkflowInput, names ...string) map[string]WorkflowInput {
	out := map[string]WorkflowInput{}
	for k, v := range m {
		out[k] = v
	}
	for _, n := range names {
		delete(out, n)
	}
	return out
}

func with(m map[string]WorkflowInput, name string, in WorkflowInput) map[string]WorkflowInput {
	out := without(m)
	out[name] = in
	return out
}
