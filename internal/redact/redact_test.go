package redact

import (
	"errors"
	"fmt"
	"testing"
)

func TestURLs(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"token and user", "https://x-access-token:tok@github.com/acme/control.git", "https://github.com/acme/control.git"},
		{"token as user", "https://tok@github.com/acme/control.git", "https://github.com/acme/control.git"},
		{"no credentials", "https://github.com/acme/control.git", "https://github.com/acme/control.git"},
		{"an address later in the message", "push https://x-access-token:SECRET@github.com/acme/c.git: rejected by hook user@example.com",
			"push https://github.com/acme/c.git: rejected by hook user@example.com"},
		{"two URLs", "from https://a:one@h1/x to https://b:two@h2/y", "from https://h1/x to https://h2/y"},
		{"an @ in the password", "https://user:p@ss@github.com/acme", "https://github.com/acme"},
		{"no scheme", "git@github.com:acme/control.git", "git@github.com:acme/control.git"},
		{"host only", "https://tok@github.com", "https://github.com"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := URLs(tc.in); got != tc.want {
				t.Errorf("URLs(%q) = %q, want %q", tc.in, got, tc.want)
			}
		})
	}
}

func TestErrorRedactsAndKeepsTheChain(t *testing.T) {
	base := errors.New("push https://x-access-token:ghs_secret@github.com/acme/api.git: refused")
	err := Error(fmt.Errorf("the work branch: %w", base))
	if got, want := err.Error(), "the work branch: push https://github.com/acme/api.git: refused"; got != want {
		t.Errorf("Error() = %q, want %q", got, want)
	}
	if !errors.Is(err, base) {
		t.Errorf("errors.Is lost the original error")
	}
	if Error(nil) != nil {
		t.Errorf("Error(nil) is not nil")
	}
}
