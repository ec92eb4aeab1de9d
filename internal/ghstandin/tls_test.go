package ghstandin_test

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/gallivant/gallivant/internal/ghstandin"
)

// SelfSigned makes a certificate for the loopback names once and keeps it:
// a restart serves the certificate clients already trust. The key is
// private to its owner.
func TestSelfSignedIsKept(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "tls")
	now := time.Date(2026, 12, 1, 0, 0, 0, 0, time.UTC)
	_, certFile, err := ghstandin.SelfSigned(dir, now)
	if err != nil {
		t.Fatal(err)
	}
	first, _ := os.ReadFile(certFile)
	if _, again, err := ghstandin.SelfSigned(dir, now.Add(time.Hour)); err != nil || again != certFile {
		t.Fatalf("second start: %s %v", again, err)
	}
	if second, _ := os.ReadFile(certFile); string(second) != string(first) {
		t.Error("a restart made a new certificate")
	}
	block, _ := pem.Decode(first)
	if block == nil {
		t.Fatalf("cert.pem holds no PEM block")
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	if err := cert.VerifyHostname("127.0.0.1"); err != nil {
		t.Errorf("127.0.0.1: %v", err)
	}
	if err := cert.VerifyHostname("localhost"); err != nil {
		t.Errorf("localhost: %v", err)
	}
	if fi, err := os.Stat(filepath.Join(dir, "key.pem")); err != nil {
		t.Error(err)
	} else if fi.Mode().Perm() != 0o600 {
		t.Errorf("key.pem has mode %v, want 0600", fi.Mode().Perm())
	}
	// Within a day of its end it is replaced.
	if _, _, err := ghstandin.SelfSigned(dir, cert.NotAfter.Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if renewed, _ := os.ReadFile(certFile); string(renewed) == string(first) {
		t.Error("a certificate about to expire was kept")
	}
}
