package modelserver

import (
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func post(t *testing.T, url, body string) (*http.Response, string) {
	t.Helper()
	resp, err := http.Post(url, "application/json", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// The script sees the prompt and the tool results, and its step comes back
// as the CLI's own tool call (Bash; exec_command) or as the final message,
// in each API's streaming events.
func TestServerAnswersLikeAModel(t *testing.T) {
	var turns []Turn
	srv := Start(t, func(turn Turn) Step {
		turns = append(turns, turn)
		if len(turn.Results) == 0 {
			return Step{Shell: "echo hi"}
		}
		return Step{Final: "status: done"}
	})
	tests := []struct {
		name, path, body string
		want             []string // substrings of the stream, in order
	}{
		{"messages, tool call", "/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":[{"type":"text","text":"target: 1"}]}]}`,
			[]string{"event: message_start", `"name":"Bash","type":"tool_use"`, `"partial_json":"{\"command\":\"echo hi\"`, `"stop_reason":"tool_use"`, "event: message_stop"}},
		{"messages, final", "/v1/messages", `{"model":"m","stream":true,"tools":[{"name":"Bash"}],"messages":[{"role":"user","content":"target: 1"},{"role":"assistant","content":[]},{"role":"user","content":[{"type":"tool_result","content":[{"type":"text","text":"hi"}]}]}]}`,
			[]string{`"text":"status: done","type":"text_delta"`, `"stop_reason":"end_turn"`}},
		{"responses, tool call", "/v1/responses", `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"target: 2"}]}]}`,
			[]string{"event: response.created", `"arguments":"{\"cmd\":\"echo hi\"}"`, `"name":"exec_command"`, "event: response.completed", `"cached_tokens":1000`}},
		{"responses, final", "/v1/responses", `{"model":"m","input":[{"type":"message","role":"user","content":[{"type":"input_text","text":"target: 2"}]},{"type":"function_call_output","call_id":"c","output":"hi"}]}`,
			[]string{`"text":"status: done","type":"output_text"`, "event: response.completed"}},
	}
	for _, tc := range tests {
		resp, body := post(t, srv.URL+tc.path, tc.body)
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("%s: status %d: %s", tc.name, resp.StatusCode, body)
		}
		rest := body
		for _, w := range tc.want {
			i := strings.Index(rest, w)
			if i < 0 {
				t.Fatalf("%s: %q missing (in order) from:\n%s", tc.name, w, body)
			}
			rest = rest[i+len(w):]
		}
	}
	want := []Turn{
		{API: "messages", Prompt: "target: 1\n"},
		{API: "messages", Prompt: "target: 1\n", Results: []string{"hi"}},
		{API: "responses", Prompt: "target: 2\n"},
		{API: "responses", Prompt: "target: 2\n", Results: []string{"hi"}},
	}
	if diff := cmp.Diff(want, turns); diff != "" {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if got := srv.Calls(); got != 4 {
		t.Errorf("calls %d, want 4", got)
	}
}

// A refusal answers every model request with its status, and tells Claude
// Code's client not to retry.
func TestServerRefuses(t *testing.T) {
	srv := Start(t, func(Turn) Step { t.Error("the script ran during a refusal"); return Step{} })
	srv.Refuse(&Refusal{Status: 401, Message: "invalid x-api-key"})
	resp, body := post(t, srv.URL+"/v1/messages", `{"stream":true,"tools":[{}],"messages":[]}`)
	if resp.StatusCode != 401 || resp.Header.Get("x-should-retry") != "false" || !strings.Contains(body, "invalid x-api-key") {
		t.Errorf("messages: %d %q %s", resp.StatusCode, resp.Header.Get("x-should-retry"), body)
	}
	resp, body = post(t, srv.URL+"/v1/responses", `{"input":[]}`)
	if resp.StatusCode != 401 || !strings.Contains(body, "invalid_api_key") {
		t.Errorf("responses: %d %s", resp.StatusCode, body)
	}
}
