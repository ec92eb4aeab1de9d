// Package modelserver is a scripted model server on 127.0.0.1 for tests
// that drive the real agent CLIs: an Anthropic Messages API (streaming
// server-sent events, as Claude Code uses it through ANTHROPIC_BASE_URL)
// and an OpenAI Responses API (as a codex model provider). It answers the
// way a model does: a Script reads the prompt and the tool results so far
// and either calls the CLI's own shell tool (Claude Code's Bash, codex's
// exec_command) or gives the final message. It is not part of gallivant's
// library surface.
package modelserver

import (
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
)

// Step is one model turn: a shell command for the CLI to run with its
// tool, or (Shell empty) the final message.
type Step struct {
	Shell string
	Final string
}

// Turn is what the model sees: the user's text (the prompt, with whatever
// the CLI added around it) and the output of each tool call so far.
type Turn struct {
	// API is the API asked: "messages" (Anthropic) or "responses"
	// (OpenAI).
	API     string
	Prompt  string
	Results []string
}

// Script decides the next step of a conversation.
type Script func(Turn) Step

// Refusal is an HTTP failure the server answers every model request with,
// instead of running the script (a revoked key, say).
type Refusal struct {
	Status  int
	Message string
}

// Server is a running scripted model server.
type Server struct {
	// URL is the server's base, http://127.0.0.1:<port>.
	URL string

	script Script
	mu     sync.Mutex
	refuse *Refusal
	calls  int
	paths  []string
}

// Start runs a server for script until the test ends.
func Start(t testing.TB, script Script) *Server {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{URL: "http://" + ln.Addr().String(), script: script}
	srv := &http.Server{Handler: s}
	done := make(chan struct{})
	go func() { defer close(done); _ = srv.Serve(ln) }()
	t.Cleanup(func() { srv.Close(); <-done })
	return s
}

// Refuse makes every later model request fail with r (nil: answer again).
func (s *Server) Refuse(r *Refusal) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.refuse = r
}

// Calls is how many model requests the server answered.
func (s *Server) Calls() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.calls
}

// Paths are the request paths the server saw, in order.
func (s *Server) Paths() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.paths...)
}

// ServeHTTP routes the two APIs; anything else (a CLI's connectivity
// probe) is answered 200 with an empty body, so that no request leaves
// the machine and none fails for being unknown.
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	s.mu.Lock()
	s.paths = append(s.paths, r.Method+" "+r.URL.Path)
	refuse := s.refuse
	s.mu.Unlock()
	body, err := io.ReadAll(io.LimitReader(r.Body, 32<<20))
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	switch {
	case r.Method == http.MethodPost && strings.HasPrefix(r.URL.Path, "/v1/messages/count_tokens"):
		writeJSON(w, map[string]any{"input_tokens": 100})
	case r.Method == http.MethodPost && r.URL.Path == "/v1/messages":
		s.count()
		if refuse != nil {
			w.Header().Set("x-should-retry", "false")
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(refuse.Status)
			writeJSONBody(w, map[string]any{"type": "error", "error": map[string]any{"type": "authentication_error", "message": refuse.Message}})
			return
		}
		s.anthropic(w, body)
	case r.Method == http.MethodPost && r.URL.Path == "/v1/responses":
		s.count()
		if refuse != nil {
			w.Header().Set("content-type", "application/json")
			w.WriteHeader(refuse.Status)
			writeJSONBody(w, map[string]any{"error": map[string]any{"type": "invalid_request_error", "code": "invalid_api_key", "message": refuse.Message}})
			return
		}
		s.responses(w, body)
	default:
		w.WriteHeader(http.StatusOK)
	}
}

func (s *Server) count() {
	s.mu.Lock()
	s.calls++
	s.mu.Unlock()
}

// anthropicRequest is the part of a Messages API request the server reads.
type anthropicRequest struct {
	Model    string `json:"model"`
	Stream   bool   `json:"stream"`
	Tools    []any  `json:"tools"`
	Messages []struct {
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
	} `json:"messages"`
}

type anthropicBlock struct {
	Type    string          `json:"type"`
	Text    string          `json:"text"`
	Content json.RawMessage `json:"content"`
}

func (s *Server) anthropic(w http.ResponseWriter, body []byte) {
	var req anthropicRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, fmt.Sprintf(`{"type":"error","error":{"type":"invalid_request_error","message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	turn := Turn{API: "messages"}
	for _, m := range req.Messages {
		if m.Role != "user" {
			continue
		}
		var text string
		if json.Unmarshal(m.Content, &text) == nil {
			turn.Prompt += text + "\n"
			continue
		}
		var blocks []anthropicBlock
		_ = json.Unmarshal(m.Content, &blocks)
		for _, b := range blocks {
			switch b.Type {
			case "text":
				turn.Prompt += b.Text + "\n"
			case "tool_result":
				turn.Results = append(turn.Results, textOf(b.Content))
			}
		}
	}
	step := Step{Final: "OK"}
	if len(req.Tools) > 0 {
		// A request without tools is one of the CLI's own (a title, a
		// summary): it is not the agent's conversation.
		step = s.script(turn)
	}
	id := fmt.Sprintf("msg_%d", s.Calls())
	var content []map[string]any
	stop := "end_turn"
	if step.Shell != "" {
		content = []map[string]any{{"type": "tool_use", "id": fmt.Sprintf("toolu_%d", s.Calls()), "name": "Bash",
			"input": map[string]any{"command": step.Shell, "description": "Run a command"}}}
		stop = "tool_use"
	} else {
		content = []map[string]any{{"type": "text", "text": step.Final}}
	}
	usage := map[string]any{"input_tokens": 100, "output_tokens": 20, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 1000}
	if !req.Stream {
		writeJSON(w, map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model, "content": content,
			"stop_reason": stop, "stop_sequence": nil, "usage": usage})
		return
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	ev := func(name string, data any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", name, b)
	}
	ev("message_start", map[string]any{"type": "message_start", "message": map[string]any{"id": id, "type": "message", "role": "assistant", "model": req.Model,
		"content": []any{}, "stop_reason": nil, "stop_sequence": nil, "usage": map[string]any{"input_tokens": 100, "output_tokens": 1, "cache_creation_input_tokens": 10, "cache_read_input_tokens": 1000}}})
	for i, c := range content {
		switch c["type"] {
		case "tool_use":
			in, _ := json.Marshal(c["input"])
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "tool_use", "id": c["id"], "name": c["name"], "input": map[string]any{}}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "input_json_delta", "partial_json": string(in)}})
		default:
			ev("content_block_start", map[string]any{"type": "content_block_start", "index": i, "content_block": map[string]any{"type": "text", "text": ""}})
			ev("content_block_delta", map[string]any{"type": "content_block_delta", "index": i, "delta": map[string]any{"type": "text_delta", "text": c["text"]}})
		}
		ev("content_block_stop", map[string]any{"type": "content_block_stop", "index": i})
	}
	ev("message_delta", map[string]any{"type": "message_delta", "delta": map[string]any{"stop_reason": stop, "stop_sequence": nil}, "usage": map[string]any{"output_tokens": 20}})
	ev("message_stop", map[string]any{"type": "message_stop"})
}

// textOf reads a tool result's content: a string or text blocks.
func textOf(raw json.RawMessage) string {
	var s string
	if json.Unmarshal(raw, &s) == nil {
		return s
	}
	var blocks []anthropicBlock
	_ = json.Unmarshal(raw, &blocks)
	var b strings.Builder
	for _, x := range blocks {
		b.WriteString(x.Text)
	}
	return b.String()
}

// responsesRequest is the part of a Responses API request the server
// reads.
type responsesRequest struct {
	Model string `json:"model"`
	Input []struct {
		Type    string          `json:"type"`
		Role    string          `json:"role"`
		Content json.RawMessage `json:"content"`
		Output  json.RawMessage `json:"output"`
	} `json:"input"`
	Tools []struct {
		Name string `json:"name"`
	} `json:"tools"`
}

func (s *Server) responses(w http.ResponseWriter, body []byte) {
	var req responsesRequest
	if err := json.Unmarshal(body, &req); err != nil {
		http.Error(w, fmt.Sprintf(`{"error":{"message":%q}}`, err.Error()), http.StatusBadRequest)
		return
	}
	turn := Turn{API: "responses"}
	for _, it := range req.Input {
		switch {
		case it.Type == "message" && it.Role == "user":
			var parts []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			}
			_ = json.Unmarshal(it.Content, &parts)
			for _, p := range parts {
				turn.Prompt += p.Text + "\n"
			}
		case it.Type == "function_call_output" || it.Type == "custom_tool_call_output":
			var out string
			if json.Unmarshal(it.Output, &out) != nil {
				var rich struct {
					Content string `json:"content"`
				}
				_ = json.Unmarshal(it.Output, &rich)
				out = rich.Content
			}
			turn.Results = append(turn.Results, out)
		}
	}
	step := s.script(turn)
	n := s.Calls()
	var item map[string]any
	if step.Shell != "" {
		args, _ := json.Marshal(map[string]any{"cmd": step.Shell})
		item = map[string]any{"type": "function_call", "id": fmt.Sprintf("fc_%d", n), "call_id": fmt.Sprintf("call_%d", n), "name": "exec_command", "arguments": string(args)}
	} else {
		item = map[string]any{"type": "message", "id": fmt.Sprintf("msg_%d", n), "role": "assistant", "status": "completed",
			"content": []map[string]any{{"type": "output_text", "text": step.Final, "annotations": []any{}}}}
	}
	w.Header().Set("content-type", "text/event-stream")
	w.Header().Set("cache-control", "no-cache")
	ev := func(data map[string]any) {
		b, _ := json.Marshal(data)
		fmt.Fprintf(w, "event: %s\ndata: %s\n\n", data["type"], b)
	}
	resp := map[string]any{"id": fmt.Sprintf("resp_%d", n), "object": "response", "model": req.Model, "status": "in_progress", "output": []any{}}
	ev(map[string]any{"type": "response.created", "response": resp})
	ev(map[string]any{"type": "response.output_item.added", "output_index": 0, "item": item})
	ev(map[string]any{"type": "response.output_item.done", "output_index": 0, "item": item})
	done := map[string]any{"id": resp["id"], "object": "response", "model": req.Model, "status": "completed", "output": []any{item},
		"usage": map[string]any{"input_tokens": 1100, "input_tokens_details": map[string]any{"cached_tokens": 1000}, "output_tokens": 20,
			"output_tokens_details": map[string]any{"reasoning_tokens": 0}, "total_tokens": 1120}}
	ev(map[string]any{"type": "response.completed", "response": done})
}

func writeJSON(w http.ResponseWriter, v any) {
	w.Header().Set("content-type", "application/json")
	writeJSONBody(w, v)
}

func writeJSONBody(w io.Writer, v any) {
	b, _ := json.Marshal(v)
	_, _ = w.Write(b)
}
