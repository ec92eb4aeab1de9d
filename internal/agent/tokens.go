package agent

import (
	"context"
	"fmt"
	"time"
)

// TokenSource gives a GitHub token valid for at least d: an App's
// installation tokens (githubapi.AppTokens), minted for the repositories
// gallivant uses at the time of asking.
type TokenSource interface {
	TokenFor(ctx context.Context, d time.Duration) (string, error)
}

// tokenSlack is how long a run's token must outlive its timeout: the push
// of the agent's commits comes after the agent, and a git process cannot
// refresh the token it was started with.
const tokenSlack = 15 * time.Minute

// withToken returns e with a current token from Tokens, when it has one;
// e itself otherwise. Its error means nothing can be fetched or pushed.
func (e CommandExecutor) withToken(ctx context.Context) (CommandExecutor, error) {
	if e.Tokens == nil {
		return e, nil
	}
	tok, err := e.Tokens.TokenFor(ctx, e.Timeout+tokenSlack)
	if err != nil {
		return e, fmt.Errorf("a token for gallivant's git: %w", err)
	}
	e.Token = tok
	return e, nil
}
