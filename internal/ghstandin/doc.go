// Package ghstandin is a stateful stand-in for GitHub's REST API, for
// tests, the demo and `gallivant sandbox`.
//
// It serves, under a GitHub Enterprise style /api/v3/ prefix, the endpoints
// gallivant uses, with GitHub's JSON shapes and status codes. Repositories are
// real bare git repositories on disk, served over smart HTTP by real git
// (`git upload-pack` and `git receive-pack --stateless-rpc`, run as
// `git http-backend` runs them, with http-backend itself kept for the rest
// of the protocol: gittransport.go; listings of references git already
// gave for the same repository state are answered again from a memo:
// gitmemo.go), so a push with the real git binary is visible through the
// API at once. It reproduces the behaviours a GitHub client must cope
// with: Link-header pagination, rate-limit headers on every response, strong
// ETags with 304 responses that cost no rate limit, primary and secondary
// rate limits (403 and 429), mergeability that is null until computed, the
// merge endpoint's compare-and-swap, and token authentication. Tests can
// switch faults on per route, read a request log and count requests that
// consumed rate limit.
//
// Its answers are checked against GitHub's OpenAPI description by the
// package's contract test (TestContract); docs/sandbox.md states the
// figures and what the stand-in does not model.
//
// The package is linked into the binary for `gallivant sandbox` and
// `gallivant demo`. Its Server's controls that only tests of other
// packages call — InjectFault, the Set…Delay, SetDraft, SetJobLog,
// SetRemaining, SetScopes and ClearScopes knobs, AddWorkflowRun, Counts,
// ResetLog and the InstallationToken… readers — stay exported because a
// package's export_test.go reaches only its own tests; helpers only this
// package's tests use live in its export_test.go.
package ghstandin
