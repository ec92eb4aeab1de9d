//go:build !linux

package main

// harden does nothing where prctl(PR_SET_DUMPABLE) does not exist
// (docs/security.md).
func harden() {}
