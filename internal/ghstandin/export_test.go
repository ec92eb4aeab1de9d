package ghstandin

import (
	"slices"
	"time"
)

// This file keeps helpers only the tests use out of the package's API.

// Deliveries returns the webhook deliveries attempted so far, oldest
// first.
func (s *Server) Deliveries() []Delivery {
	s.mu.Lock()
	defer s.mu.Unlock()
	return slices.Clone(s.deliveries)
}

// SetAppTokenTTL changes how long installation tokens minted from now on
// live (DefaultAppTokenTTL otherwise), so that tests can watch them expire.
func (s *Server) SetAppTokenTTL(d time.Duration) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.appsLocked().ttl = d
}
