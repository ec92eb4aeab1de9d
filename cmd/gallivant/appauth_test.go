package main

import (
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/pem"
	"os"
	"sort"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/internal/agentstandin"
	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGHApp registers a GitHub App with the script's stand-in, installs it
// on an account and writes its private key as PEM: `ghapp ID SLUG ACCOUNT
// KEYFILE` (and in $APPKEY). ACCOUNT "-" registers it without installing it.
func cmdGHApp(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := servers.Load(ts)
	if neg || len(args) != 4 || !ok {
		ts.Fatalf("usage: ghapp ID SLUG ACCOUNT KEYFILE (after github)")
	}
	s := v.(*ghstandin.Server)
	id, err := strconv.ParseInt(args[0], 10, 64)
	if err != nil {
		ts.Fatalf("ghapp: %v", err)
	}
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		ts.Fatalf("ghapp: %v", err)
	}
	s.RegisterApp(id, args[1], &key.PublicKey)
	if args[2] != "-" {
		s.InstallApp(id, args[2])
	}
	block := pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)})
	if err := os.WriteFile(ts.MkAbs(args[3]), block, 0o600); err != nil {
		ts.Fatalf("ghapp: %v", err)
	}
	// $APPKEY holds the PEM too, as a CI secret passed in the environment.
	ts.Setenv("APPKEY", string(block))
}

// cmdGHAppTokens prints, one line per installation token the stand-in
// minted, the repositories it was narrowed to, space-separated and sorted,
// or "all": `ghtokens`; `ghtokens -perms` adds the permissions each asked
// for, as sorted name=level pairs.
func cmdGHAppTokens(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := servers.Load(ts)
	perms := len(args) == 1 && args[0] == "-perms"
	if neg || (len(args) != 0 && !perms) || !ok {
		ts.Fatalf("usage: ghtokens [-perms] (after github)")
	}
	var lines []string
	for _, g := range v.(*ghstandin.Server).InstallationTokenGrants() {
		line := "all"
		if g.Repositories != nil {
			sort.Strings(g.Repositories)
			line = strings.Join(g.Repositories, " ")
		}
		if perms {
			var kv []string
			for k, v := range g.Permissions {
				kv = append(kv, k+"="+v)
			}
			sort.Strings(kv)
			line += " " + strings.Join(kv, " ")
		}
		lines = append(lines, line)
	}
	sort.Strings(lines)
	for _, l := range lines {
		ts.Stdout().Write([]byte(l + "\n"))
	}
}

// cmdStandins writes the stand-in agent CLIs (claude, codex, aider) into a
// directory of the script's work directory: `standins DIR`. Steering files
// (internal/agentstandin) go next to them.
func cmdStandins(ts *testscript.TestScript, neg bool, args []string) {
	if neg || len(args) != 1 {
		ts.Fatalf("usage: standins DIR")
	}
	dir := ts.MkAbs(args[0])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		ts.Fatalf("standins: %v", err)
	}
	if err := agentstandin.WriteDir(dir); err != nil {
		ts.Fatalf("standins: %v", err)
	}
}
