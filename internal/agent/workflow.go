package agent

import (
	"fmt"
	"sort"
	"strings"

	"go.yaml.in/yaml/v3"
)

// WorkflowDispatch is what a GitHub Actions workflow file declares for
// workflow_dispatch: whether it has the trigger and which inputs it takes.
// GitHub refuses a dispatch with an input the workflow does not declare,
// or without one it requires, so the workflow executor reads this first.
type WorkflowDispatch struct {
	Dispatchable bool
	Inputs       map[string]WorkflowInput
}

// WorkflowInput is one declared workflow_dispatch input.
type WorkflowInput struct {
	Required bool
	// HasDefault reports a default, which makes a required input optional
	// to send.
	HasDefault bool
}

// ParseWorkflowDispatch reads the `on:` of a workflow file in any of its
// three forms (a word, a list, a map). It never panics; a file that is not
// YAML is an error.
func ParseWorkflowDispatch(data []byte) (WorkflowDispatch, error) {
	var wf struct {
		On yaml.Node `yaml:"on"`
	}
	if err := yaml.Unmarshal(data, &wf); err != nil {
		return WorkflowDispatch{}, fmt.Errorf("workflow file is not YAML: %w", err)
	}
	on := wf.On
	switch on.Kind {
	case yaml.ScalarNode:
		return WorkflowDispatch{Dispatchable: on.Value == "workflow_dispatch"}, nil
	case yaml.SequenceNode:
		for _, n := range on.Content {
			if n.Kind == yaml.ScalarNode && n.Value == "workflow_dispatch" {
				return WorkflowDispatch{Dispatchable: true}, nil
			}
		}
	case yaml.MappingNode:
		for i := 0; i+1 < len(on.Content); i += 2 {
			if on.Content[i].Value != "workflow_dispatch" {
				continue
			}
			out := WorkflowDispatch{Dispatchable: true, Inputs: map[string]WorkflowInput{}}
			var trig struct {
				Inputs map[string]struct {
					Required bool      `yaml:"required"`
					Default  yaml.Node `yaml:"default"`
				} `yaml:"inputs"`
			}
			// `workflow_dispatch:` with nothing after it is a null node.
			if n := on.Content[i+1]; n.Kind == yaml.MappingNode {
				if err := n.Decode(&trig); err != nil {
					return WorkflowDispatch{}, fmt.Errorf("workflow_dispatch inputs: %w", err)
				}
			}
			for name, in := range trig.Inputs {
				out.Inputs[name] = WorkflowInput{Required: in.Required, HasDefault: in.Default.Kind != 0}
			}
			return out, nil
		}
	}
	return WorkflowDispatch{}, nil
}

// workflowInputs are the workflow_dispatch inputs the workflow executor
// sends (docs/reconcile.md lists them); a workflow it dispatches must
// declare every one, because GitHub refuses a dispatch carrying an
// undeclared input.
var workflowInputs = []string{"control", "spec", "ledger", "branch", "target", "pending", "iteration", "round", "model"}

// WorkflowError is the workflow executor's refusal to dispatch a workflow
// GitHub would refuse: one without the trigger, one that lacks inputs
// gallivant sends, or one that requires inputs gallivant does not send.
type WorkflowError struct {
	Repo, Workflow, Ref string
	NoTrigger           bool
	// Missing are inputs gallivant sends that the workflow must declare.
	Missing []string
	// Unfilled are inputs the workflow requires, without a default, that
	// gallivant does not send.
	Unfilled []string
}

func (e *WorkflowError) Error() string {
	where := fmt.Sprintf("workflow %s in %s (on %s)", e.Workflow, e.Repo, e.Ref)
	if e.NoTrigger {
		return where + " has no workflow_dispatch trigger; it must declare workflow_dispatch with the inputs " + strings.Join(workflowInputs, ", ")
	}
	var parts []string
	if len(e.Missing) > 0 {
		parts = append(parts, "must declare the workflow_dispatch inputs "+strings.Join(e.Missing, ", "))
	}
	if len(e.Unfilled) > 0 {
		parts = append(parts, "requires inputs gallivant does not send ("+strings.Join(e.Unfilled, ", ")+"); give them a default or make them optional")
	}
	return where + " " + strings.Join(parts, " and ")
}

// check compares a declaration with what the executor sends.
func (wd WorkflowDispatch) check(repo, workflow, ref string, inputs map[string]string) error {
	e := &WorkflowError{Repo: repo, Workflow: workflow, Ref: ref, NoTrigger: !wd.Dispatchable}
	if e.NoTrigger {
		return e
	}
	for _, name := range workflowInputs {
		if _, ok := wd.Inputs[name]; !ok {
			e.Missing = append(e.Missing, name)
		}
	}
	for name, in := range wd.Inputs {
		if _, sent := inputs[name]; in.Required && !in.HasDefault && !sent {
			e.Unfilled = append(e.Unfilled, name)
		}
	}
	sort.Strings(e.Unfilled)
	if len(e.Missing) > 0 || len(e.Unfilled) > 0 {
		return e
	}
	return nil
}
