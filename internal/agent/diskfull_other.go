//go:build !unix

package agent

// fileSystemFull is not known here: only an error wrapping ENOSPC tells a
// full disk.
func fileSystemFull(string) (string, bool) { return "", false }
