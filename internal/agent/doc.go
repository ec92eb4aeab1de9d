// Package agent runs coding agents for the pass: the executors (command,
// workflow, none), the agent's process (environment allow-list, run_as,
// timeout), its checkout and gallivant's mirror of the member repository.
// Package reconcile decides what to dispatch and when; this package only
// runs what it is handed and reports what the agent left.
package agent
