package main

import (
	"context"
	"strconv"
	"strings"

	"github.com/gallivant/gallivant/internal/ghstandin"
	"github.com/google/go-github/v66/github"
	"github.com/rogpeppe/go-internal/testscript"
)

// cmdGHCopyPR opens a pull request as another user with the body of an
// existing one, the copied identity block and receipt of issue 11:
// `ghcopypr owner/name N branch login` creates branch at the head
// of #N and opens a pull request from it, as login.
func cmdGHCopyPR(ts *testscript.TestScript, neg bool, args []string) {
	v, ok := servers.Load(ts)
	if neg || len(args) != 4 || !ok {
		ts.Fatalf("usage: ghcopypr owner/name N branch login (after github)")
	}
	s := v.(*ghstandin.Server)
	ctx := context.Background()
	owner, name, _ := strings.Cut(args[0], "/")
	n, err := strconv.Atoi(args[1])
	if err != nil {
		ts.Fatalf("ghcopypr: %v", err)
	}
	admin, login := s.Client(ghstandin.DefaultLogin), s.Client(args[3])
	src, _, err := admin.PullRequests.Get(ctx, owner, name, n)
	if err != nil {
		ts.Fatalf("ghcopypr: %v", err)
	}
	ref := "refs/heads/" + args[2]
	if _, _, err := admin.Git.CreateRef(ctx, owner, name, &github.Reference{Ref: &ref, Object: &github.GitObject{SHA: src.GetHead().SHA}}); err != nil {
		ts.Fatalf("ghcopypr: %v", err)
	}
	pr, _, err := login.PullRequests.Create(ctx, owner, name, &github.NewPullRequest{Title: src.Title, Body: src.Body, Head: &args[2], Base: src.GetBase().Ref})
	if err != nil {
		ts.Fatalf("ghcopypr: %v", err)
	}
	ts.Logf("opened %s#%d", args[0], pr.GetNumber())
}
