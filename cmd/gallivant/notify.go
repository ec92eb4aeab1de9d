package main

import (
	"context"
	"fmt"
	"log/slog"

	"github.com/gallivant/gallivant/reconcile"
)

// deliverNotifications sends what the ledgers owe after a pass (notify:
// in gallivant.yaml) and says what happened on standard error. A failed
// delivery never changes the pass's exit status: it is retried next pass
// and ends in a notify-failed note.
func (a *app) deliverNotifications(ctx context.Context, r *reconcile.Reconciler, log *slog.Logger) {
	o := reconcile.NotifyOptions{Env: a.env}
	if a.metrics != nil {
		o.Observe = a.metrics.ObserveNotification
	}
	res, err := r.Notify(ctx, o)
	for _, n := range res {
		switch n.Outcome {
		case reconcile.NotifyDelivered:
			a.narrate(slog.LevelInfo, fmt.Sprintf("%s: notified %s: %s", n.Spec, n.Target, n.Event), "notified", "spec", n.Spec, "target", n.Target, "event", n.Event)
		default:
			a.narrate(slog.LevelWarn, fmt.Sprintf("%s: notification to %s (%s) %s: %s", n.Spec, n.Target, n.Event, n.Outcome, n.Error),
				"notification not delivered", "spec", n.Spec, "target", n.Target, "event", n.Event, "outcome", string(n.Outcome), "error", n.Error)
		}
	}
	if err != nil {
		log.Warn("notifications not delivered", "error", err.Error())
	}
}
