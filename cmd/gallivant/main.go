// Command gallivant is a GitOps reconciler for agent-driven software delivery.
//
// See the README and docs/ for what it does; this package holds only the CLI:
// flags, wiring, output formats and exit codes.
package main

import "os"

func main() { os.Exit(run(os.Args[1:], stdio(), os.Getenv)) }
