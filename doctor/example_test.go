package doctor_test

import (
	"fmt"

	"github.com/gallivant/gallivant/doctor"
	"github.com/gallivant/gallivant/specs"
)

// ParseVersion and KindOf read what doctor observes: a CLI's version line and
// the kind of a GitHub token, from its prefix, never its secret part.
func ExampleParseVersion() {
	v, ok := doctor.ParseVersion("2.0.14 (Claude Code)")
	min, _ := doctor.ParseVersion("2.0.0")
	fmt.Println(ok, doctor.Less(v, min))
	for _, tok := range []string{"ghp_xxxxxxxx", "github_pat_xxxxxxxx", "ghs_xxxxxxxx"} {
		fmt.Println(doctor.KindOf(tok))
	}
	// Output:
	// true false
	// classic
	// fine-grained
	// installation
}

// Diagnose judges the facts the command observed: here a missing token,
// with the exact fix.
func ExampleDiagnose() {
	cfg := specs.DefaultConfig()
	for _, f := range doctor.Diagnose(doctor.Facts{Config: cfg, Token: doctor.Token{Var: "GITHUB_TOKEN", Missing: true}}) {
		if f.Check == doctor.CheckToken {
			fmt.Println(f.Status, "-", f.Found)
			fmt.Println("fix:", f.Fix)
		}
	}
	// Output:
	// fail - no GitHub token: $GITHUB_TOKEN and $GH_TOKEN are empty, and no GitHub App is configured
	// fix: export GITHUB_TOKEN=<token> (a classic token with the repo scope, or a fine-grained token with contents, pull requests, checks, commit statuses and actions), or configure a GitHub App (github.app_id, docs/github.md)
}
