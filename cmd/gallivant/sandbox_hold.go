package main

import (
	"github.com/gallivant/gallivant/internal/ghstandin"
)

// sandboxHold arms --hold: the first API request that matches it waits,
// with --hold-file written, until the file is removed (ghstandin.Hold).
func sandboxHold(s *ghstandin.Server, opts *sandboxOptions) error {
	if opts.Hold == "" {
		if opts.HoldFile != "" {
			return usageError("--hold-file needs --hold %s", ghstandin.HoldSyntax)
		}
		return nil
	}
	method, path, err := ghstandin.ParseHold(opts.Hold)
	if err != nil {
		return usageError("--hold %v", err)
	}
	if opts.HoldFile == "" {
		return usageError("--hold needs --hold-file FILE, the file the sandbox writes while it holds the request")
	}
	if err := s.SetHold(ghstandin.Hold{Method: method, Path: path, Signal: opts.HoldFile}); err != nil {
		return usageError("--hold %v", err)
	}
	return nil
}
