package main

import (
	"fmt"
	"io"
	"net/url"
	"os"
	"strconv"
	"strings"
	"syscall"

	"github.com/gallivant/gallivant/internal/redact"
)

// controlCredentialsEnv is where the credentials of a --control URL are
// found once they are out of argv: the CLI's own variable (never in the
// process's environment), filled from the descriptor
// controlCredentialsFDEnv names.
const (
	controlCredentialsEnv   = "GALLIVANT_CONTROL_CREDENTIALS"
	controlCredentialsFDEnv = "GALLIVANT_CONTROL_CREDENTIALS_FD"
)

// splitControlArgs finds the --control values of argv that hold URL
// credentials: argv with each replaced by the URL without them, and the
// credentials (user:password of the last such value). ok is false when
// none holds any.
func splitControlArgs(args []string) (out []string, cred string, ok bool) {
	out = append([]string(nil), args...)
	for i := 0; i < len(out); i++ {
		a := out[i]
		if a == "--" {
			break
		}
		j, val := -1, ""
		switch {
		case a == "--control" && i+1 < len(out):
			j, val = i+1, out[i+1]
		case strings.HasPrefix(a, "--control="):
			j, val = i, strings.TrimPrefix(a, "--control=")
		default:
			continue
		}
		u, err := url.Parse(val)
		if err != nil || u.User == nil || !strings.HasPrefix(u.Scheme, "http") {
			continue
		}
		cred, ok = u.User.String(), true
		bare := redact.URLs(val)
		if j == i {
			out[i] = "--control=" + bare
		} else {
			out[j] = bare
			i++
		}
	}
	return out, cred, ok
}

// reexecWithoutControlCredentials restarts gallivant without the
// credentials of a --control URL in its argv, where every local user
// (and a run_as agent) could read them in /proc/<pid>/cmdline: the
// credentials travel through a pipe the new process reads at once. It
// returns only when there is nothing to do or the restart failed (then
// the credentials stay in argv, and a warning says so).
func reexecWithoutControlCredentials(argv []string, stderr io.Writer) {
	if len(argv) < 2 {
		return
	}
	args, cred, ok := splitControlArgs(argv[1:])
	if !ok {
		return
	}
	fmt.Fprintln(stderr, "gallivant: warning: --control holds a credential, which every local user can read in the process list; restarting without it in argv. Pass the URL without credentials and the token in $GITHUB_TOKEN instead.")
	exe, err := os.Executable()
	if err != nil {
		fmt.Fprintf(stderr, "gallivant: warning: could not restart (%v); the credential stays in argv\n", err)
		return
	}
	var p [2]int
	if err := syscall.Pipe(p[:]); err != nil {
		fmt.Fprintf(stderr, "gallivant: warning: could not restart (%v); the credential stays in argv\n", err)
		return
	}
	if _, err := syscall.Write(p[1], []byte(cred)); err != nil {
		fmt.Fprintf(stderr, "gallivant: warning: could not restart (%v); the credential stays in argv\n", err)
		return
	}
	syscall.Close(p[1])
	env := append(os.Environ(), controlCredentialsFDEnv+"="+strconv.Itoa(p[0]))
	err = syscall.Exec(exe, append([]string{argv[0]}, args...), env)
	syscall.Close(p[0])
	fmt.Fprintf(stderr, "gallivant: warning: could not restart (%v); the credential stays in argv\n", err)
}

// takeControlCredentials reads the credentials a restart passed (see
// reexecWithoutControlCredentials) and closes their descriptor.
func takeControlCredentials() (string, bool) {
	v := os.Getenv(controlCredentialsFDEnv)
	if v == "" {
		return "", false
	}
	os.Unsetenv(controlCredentialsFDEnv)
	fd, err := strconv.Atoi(v)
	if err != nil || fd < 3 {
		return "", false
	}
	f := os.NewFile(uintptr(fd), "control credentials")
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil || len(b) == 0 {
		return "", false
	}
	return string(b), true
}

// withControlCredentials puts credentials a restart took out of argv
// back into the --control URL, for the store alone.
func withControlCredentials(control, cred string) string {
	if cred == "" {
		return control
	}
	u, err := url.Parse(control)
	if err != nil || u.User != nil || !strings.HasPrefix(u.Scheme, "http") {
		return control
	}
	user, pass, hasPass := strings.Cut(cred, ":")
	if user, err = url.PathUnescape(user); err != nil {
		return control
	}
	if hasPass {
		if pass, err = url.PathUnescape(pass); err != nil {
			return control
		}
		u.User = url.UserPassword(user, pass)
	} else {
		u.User = url.User(user)
	}
	return u.String()
}
