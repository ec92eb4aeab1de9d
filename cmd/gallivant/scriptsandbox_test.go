package main

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdSandboxEnv waits (up to 30 s of real time: the sandbox is a separate
// process started in the background) for the file `gallivant sandbox
// --env-file FILE` writes, and sets each of its KEY=VALUE lines in the
// script's environment, as a shell that sources it would. For every
// GIT_URL_<OWNER>_<NAME> it also sets GIT_PUSH_URL_<OWNER>_<NAME>, the same
// URL with the main token in it, which a person pushes with:
// `sandboxenv FILE`.
func cmdSandboxEnv(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: sandboxenv FILE")
	}
	path := ts.MkAbs(args[0])
	var data []byte
	for deadline := time.Now().Add(30 * time.Second); ; {
		var err error
		if data, err = os.ReadFile(path); err == nil {
			break
		}
		if !errors.Is(err, fs.ErrNotExist) || time.Now().After(deadline) {
			ts.Fatalf("sandboxenv: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
	env := map[string]string{}
	sc := bufio.NewScanner(bytes.NewReader(data))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), "=")
		if !ok {
			ts.Fatalf("sandboxenv: %q is not KEY=VALUE", sc.Text())
		}
		env[k] = v
		ts.Setenv(k, v)
	}
	for k, v := range env {
		if name, ok := strings.CutPrefix(k, "GIT_URL_"); ok {
			ts.Setenv("GIT_PUSH_URL_"+name, strings.Replace(v, "://", "://x-access-token:"+env["GITHUB_TOKEN"]+"@", 1))
		}
	}
}

// cmdGHAPI sends one request to a GitHub API, as a person with token T
// would with curl, and writes the response body to stdout; it fails
// unless the answer is 2xx (with `!`, unless it is not):
// `ghapi -token T METHOD URL [JSON-BODY]`.
func cmdGHAPI(ts *testscript.TestScript, neg bool, args []string) {
	if len(args) < 4 || len(args) > 5 || args[0] != "-token" {
		ts.Fatalf("usage: ghapi -token T METHOD URL [JSON-BODY]")
	}
	var body io.Reader
	if len(args) == 5 {
		body = strings.NewReader(args[4])
	}
	req, err := http.NewRequest(args[2], args[3], body)
	if err != nil {
		ts.Fatalf("ghapi: %v", err)
	}
	req.Header.Set("Authorization", "Bearer "+args[1])
	req.Header.Set("Accept", "application/vnd.github+json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		ts.Fatalf("ghapi: %v", err)
	}
	defer resp.Body.Close()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		ts.Fatalf("ghapi: %v", err)
	}
	ts.Stdout().Write(out)
	if ok := resp.StatusCode/100 == 2; ok == neg {
		ts.Fatalf("ghapi %s %s: %s\n%s", args[2], args[3], resp.Status, out)
	}
}
