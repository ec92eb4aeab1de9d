// Command gallivant is a GitOps reconciler for agent-driven software delivery.
//
// See the README and docs/ for what it does; this package holds only the CLI:
// flags, wiring, output formats and exit codes.
package main

import "os"

func main() {
	harden()
	getenv := os.Getenv
	if cred, ok := takeControlCredentials(); ok {
		getenv = func(k string) string {
			if k == controlCredentialsEnv {
				return cred
			}
			return os.Getenv(k)
		}
	} else {
		reexecWithoutControlCredentials(os.Args, os.Stderr)
	}
	os.Exit(run(os.Args[1:], stdio(), getenv))
}
