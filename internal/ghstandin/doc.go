// Package ghstandin is a stateful stand-in for GitHub's REST API, for
// tests, the demo and `gallivant sandbox`.
//
// It serves, under a GitHub Enterprise style /api/v3/ prefix, the endpoints
// gallivant uses, with GitHub's JSON shapes and status codes. Repositories are
// real bare git repositories on disk, served over smart HTTP by
// `git http-backend`, so a push with the real git binary is visible through
// the API at once. It reproduces the behaviours a GitHub client must cope
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
package ghstandin
