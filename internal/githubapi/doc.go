// Package githubapi is gallivant's GitHub adapter: exactly the operations
// the reconciler needs, each returning plain values, over go-github with a
// conditional-request (ETag) cache that survives the process, retries that
// honour GitHub's rate limits, a request meter, and GitHub App
// authentication.
//
// Errors are classified where callers branch: *RateLimitedError,
// *NotFoundError, *CredentialsError (errors.Is ErrCredentials),
// *UnreachableError (errors.Is ErrUnreachable) and ErrMergeConflict. The
// token never appears in an error, a log line or the state file.
//
// The package knows nothing of specs or ledgers; the reconciler declares
// the interface it needs (reconcile.GitHubClient) and this package's
// Client implements it. Its tests drive the real go-github client against
// the stand-in in internal/ghstandin.
package githubapi
