package reconcile

import (
	"context"
	"strings"
	"testing"

	"github.com/gallivant/gallivant/internal/agent"
)

// unverifying is a local executor whose Verify answers Unsupported.
type unverifying struct{ agent.CommandExecutor }

func (unverifying) Verify(context.Context, agent.Task, []string, []string) (agent.VerifyResult, error) {
	return agent.VerifyResult{Unsupported: true}, nil
}

// L-104: an executor that runs agents here but cannot verify does not let
// the head through unverified: the entry stops verify-failed, saying why,
// and no pull request opens.
func TestVerifyUnsupportedStops(t *testing.T) {
	t.Parallel()
	r := newRig(t, map[string]string{"specs/feature.md": specWith(1, "")})
	got := subjectsOf(r.pass(func(o *Options) { o.Executor = unverifying{o.Executor.(agent.CommandExecutor)} }))
	if len(got) == 0 || got[len(got)-1] != "loop: stop verify-failed" || r.prs() != 0 {
		t.Fatalf("got %v with %d pull requests, want a verify-failed stop and none", got, r.prs())
	}
	if stop := r.ledgerOf("specs/feature.md").Delivery.Stop.String(); !strings.Contains(stop, "cannot run the verification") {
		t.Errorf("stop %q does not say that the executor cannot verify", stop)
	}
}
