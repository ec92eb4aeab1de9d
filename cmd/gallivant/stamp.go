package main

import "runtime/debug"

// Set by release builds (.goreleaser.yaml, Dockerfile) with
//
//	-ldflags "-X main.stampVersion=v1.2.3 -X main.stampCommit=<sha> -X main.stampDate=<RFC 3339>"
//
// Empty in any other build, where version() reads the module build info.
var (
	stampVersion string
	stampCommit  string
	stampDate    string
)

// versionLine is what `gallivant version` prints after "gallivant ": the
// version, and for a stamped build the commit and build date as well.
func versionLine() string {
	v := version()
	switch {
	case stampCommit != "" && stampDate != "":
		return v + " (commit " + stampCommit + ", built " + stampDate + ")"
	case stampCommit != "":
		return v + " (commit " + stampCommit + ")"
	}
	return v
}

// buildRevision is the commit the binary was built from: the release
// stamp, else the VCS revision go build recorded, else "".
func buildRevision() string {
	if stampCommit != "" {
		return stampCommit
	}
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, s := range bi.Settings {
			if s.Key == "vcs.revision" {
				return s.Value
			}
		}
	}
	return ""
}
