package main

import (
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"syscall"
	"time"

	"github.com/rogpeppe/go-internal/testscript"
)

// cmdFreePort sets an environment variable to a free loopback port, so a
// script can start a server in the background at a known address:
// `freeport VAR`.
func cmdFreePort(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: freeport VAR")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		ts.Fatalf("freeport: %v", err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()
	ts.Setenv(args[0], strconv.Itoa(port))
}

// cmdHTTPGet fetches a URL and writes the response body to stdout, waiting
// (up to 30 s of real time: the server is a separate process) for a
// background server to start listening: `httpget [-token T] URL`.
func cmdHTTPGet(ts *testscript.TestScript, neg bool, args []string) {
	token := ""
	if len(args) == 3 && args[0] == "-token" {
		token, args = args[1], args[2:]
	}
	if neg || len(args) != 1 {
		ts.Fatalf("usage: httpget [-token T] URL")
	}
	req, err := http.NewRequest("GET", args[0], nil)
	if err != nil {
		ts.Fatalf("httpget: %v", err)
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	deadline := time.Now().Add(30 * time.Second)
	for {
		resp, err := http.DefaultClient.Do(req)
		if err == nil {
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			ts.Stdout().Write(body)
			return
		}
		// A server still starting refuses the connection, or resets one
		// its listener accepted before it was serving; a GET is safe to
		// ask again.
		starting := errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET)
		if !starting || time.Now().After(deadline) {
			ts.Fatalf("httpget: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
