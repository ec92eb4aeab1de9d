package reconcile

import (
	"context"
	"time"

	"github.com/gallivant/gallivant/gatekeep"
)

// dashboardComments reads the dashboard issue's comments, for the hints
// follow-up comments give ticked boxes (gatekeep.DashboardHint). It never
// returns nil without an error, so that a caller reads them once a pass.
func (p *passState) dashboardComments(ctx context.Context, repo string, number int) ([]gatekeep.DashboardComment, error) {
	cs, err := p.GitHub.IssueComments(ctx, repo, number, time.Time{})
	if err != nil {
		return nil, err
	}
	out := make([]gatekeep.DashboardComment, 0, len(cs))
	for _, c := range cs {
		out = append(out, gatekeep.DashboardComment{Author: c.User, Body: c.Body, Created: c.CreatedAt})
	}
	return out, nil
}
