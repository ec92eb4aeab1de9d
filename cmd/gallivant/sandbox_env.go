package main

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
)

// removeEnvFile removes a previous run's --env-file before the sandbox
// starts, so that a script waiting for the file never sources a stale one.
func removeEnvFile(path string) error {
	if path == "" {
		return nil
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// writeEnvFile writes content to path atomically: to a temporary file in
// the same directory, then renamed, so a reader sees no file or the whole
// file. The file holds a token, so it is readable by its owner only.
func writeEnvFile(path, content string) error {
	if path == "" {
		return nil
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".*")
	if err != nil {
		return err
	}
	tmp := f.Name()
	_, werr := f.WriteString(content)
	if cerr := f.Close(); werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp, path)
	}
	if werr != nil {
		os.Remove(tmp)
	}
	return werr
}
