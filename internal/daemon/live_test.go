package daemon

import (
	"fmt"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/agent"
)

// The entry page shows a running agent's last output lines, bounded, as
// text, and nothing once the run has finished.
func TestEntryPageShowsLiveTail(t *testing.T) {
	t.Parallel()
	live := NewLiveRuns()
	state := &State{}
	state.SetView(sampleView())
	state.RecordPass(PassRecord{Ended: time.Now(), Result: ResultOK})
	ts := httptest.NewServer(Handler(HandlerOptions{State: state, Live: live}))
	defer ts.Close()
	r := agent.Run{Spec: "specs/a.md", Task: "row 2", Started: time.Now().Add(-65 * time.Second)}
	live.Started(r)
	for i := 1; i <= 30; i++ {
		live.Output(r, fmt.Sprintf("step %d", i))
	}
	live.Output(r, "<script>alert(1)</script>")
	_, body := get(t, ts.URL+"/entry/specs/a.md")
	for _, want := range []string{"Running now: row 2, started 1m ago", "step 30\n", "&lt;script&gt;alert(1)&lt;/script&gt;", "The last 20 lines"} {
		if !strings.Contains(body, want) {
			t.Errorf("entry page lacks %q:\n%s", want, body)
		}
	}
	for _, gone := range []string{"step 11\n", "<script>"} {
		if strings.Contains(body, gone) {
			t.Errorf("entry page has %q", gone)
		}
	}
	if _, other := get(t, ts.URL+"/entry/specs/b.md"); strings.Contains(other, "Running now") {
		t.Errorf("another entry's page shows the run")
	}
	live.Finished(r)
	if _, body := get(t, ts.URL+"/entry/specs/a.md"); strings.Contains(body, "Running now") {
		t.Errorf("the finished run is still shown")
	}
}
