package ghstandin

import "testing"

// The stand-in parses workflow files from pushes it does not control; the
// parser never panics.
func FuzzDispatchable(f *testing.F) {
	f.Add([]byte("on: workflow_dispatch\n"))
	f.Add([]byte("on: [push, workflow_dispatch]\n"))
	f.Add([]byte("on:\n  workflow_dispatch:\n    inputs:\n      a: {required: true, type: choice, options: [x, y]}\n"))
	f.Add([]byte("on:\n  workflow_dispatch:\n    inputs: 3\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		ok, inputs, err := dispatchable(data)
		if !ok && len(inputs) > 0 {
			t.Errorf("inputs %v without a trigger", inputs)
		}
		_ = err
	})
}
