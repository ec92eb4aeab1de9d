package reconcile

// Notification delivery outcomes, as NotifyOptions.Observe receives them.
const (
	NotifyDelivered = "delivered" // the target accepted it; the ledger marks it delivered
	NotifyRetry     = "retry"     // the target refused or timed out; it stays owed
	NotifyFailed    = "failed"    // the retries are spent; a notify-failed note replaces it
)
