package specs

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseNotify(t *testing.T) {
	t.Parallel()
	good := `notify:
  - name: ops
    url: https://hooks.example.com/gallivant
    on: [stops, resumes, ready, done]
  - name: slack
    url_env: SLACK_WEBHOOK_URL
    format: slack
    on: [stuck, done]
`
	cfg, ds := ParseConfig("gallivant.yaml", []byte(good))
	if len(ds) != 0 {
		t.Fatalf("diagnostics: %v", ds)
	}
	want := []NotifyTarget{
		{Name: "ops", URL: "https://hooks.example.com/gallivant", Format: NotifyJSON, On: []string{"stops", "resumes", "ready", "done"}},
		{Name: "slack", URLEnv: "SLACK_WEBHOOK_URL", Format: NotifySlack, On: []string{"stuck", "done"}},
	}
	if diff := cmp.Diff(want, cfg.Notify); diff != "" {
		t.Errorf("targets mismatch (-want +got):\n%s", diff)
	}
	wants := map[string][]string{}
	for _, ev := range []string{"stop", "stuck", "resume", "ready", "done"} {
		wants[ev] = cfg.NotifyWants(ev)
	}
	if diff := cmp.Diff(map[string][]string{"stop": {"ops"}, "stuck": {"ops", "slack"}, "resume": {"ops"}, "ready": {"ops"}, "done": {"ops", "slack"}}, wants); diff != "" {
		t.Errorf("subscriptions mismatch (-want +got):\n%s", diff)
	}

	tests := []struct{ name, yaml, want string }{
		{"not a list", "notify: {name: ops}", "notify must be a list of targets"},
		{"no name", "notify:\n  - url: https://x.example\n    on: [done]", "needs a name"},
		{"bad name", "notify:\n  - name: Ops!\n    url: https://x.example\n    on: [done]", "lower-case letters"},
		{"twice", "notify:\n  - name: a\n    url: https://x.example\n    on: [done]\n  - name: a\n    url: https://y.example\n    on: [done]", "listed twice"},
		{"no url", "notify:\n  - name: a\n    on: [done]", "exactly one of url and url_env"},
		{"both urls", "notify:\n  - name: a\n    url: https://x.example\n    url_env: X\n    on: [done]", "exactly one of url and url_env"},
		{"not http", "notify:\n  - name: a\n    url: ftp://x.example\n    on: [done]", "http or https URL"},
		{"no events", "notify:\n  - name: a\n    url: https://x.example", "needs on:"},
		{"unknown event", "notify:\n  - name: a\n    url: https://x.example\n    on: [merged]", `on lists "merged"`},
		{"unknown format", "notify:\n  - name: a\n    url: https://x.example\n    format: teams\n    on: [done]", "must be one of json, slack"},
		{"a URL variable passed to the agent", "executor:\n  env: [PATH, HOOK]\nnotify:\n  - name: a\n    url_env: HOOK\n    on: [done]", "must not pass HOOK to the agent"},
		{"unknown key", "notify:\n  - name: a\n    url: https://x.example\n    on: [done]\n    retries: 3", "unknown key notify[].retries"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, ds := ParseConfig("gallivant.yaml", []byte(tt.yaml))
			if !ds.HasErrors() || !strings.Contains(fmt.Sprint(ds), tt.want) {
				t.Errorf("diagnostics %v; want an error containing %q", ds, tt.want)
			}
		})
	}
}
