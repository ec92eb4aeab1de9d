package ledger

import (
	"strings"
	"testing"

	"github.com/gallivant/gallivant/specs"
	"github.com/google/go-cmp/cmp"
)

func TestReturnSpend(t *testing.T) {
	tests := []struct {
		name, body string
		want       specs.Amount
	}{
		{"both", "pending: x\n\nrow 1 done | a | b\n\ntokens: 1234\ncost: 0.0123\n", specs.Amount{Tokens: 1234, Micros: 12300}},
		{"among other trailers", "row 1 done | a | b\n\nCo-authored-by: x <x@y>\ntokens: 7\n", specs.Amount{Tokens: 7}},
		{"not in the last paragraph", "tokens: 5\n\nrow 1 done | a | b\n", specs.Amount{}},
		{"malformed", "row\n\ntokens: many\ncost: $1\n", specs.Amount{}},
		{"none", "row 1 done | a | b\n", specs.Amount{}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, ReturnSpend(tc.body)); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

// An admitted return's tokens: and cost: trailers add to the running
// total in the delivery section, which a ledger keeps byte for byte.
func TestAdmitAddsSpend(t *testing.T) {
	l := dispatched(t, ledgerOf(t, 4, []string{"open/0"}, seeded), 1)
	l.Delivery.Spent = specs.Amount{Tokens: 1000}
	r := rowReturn(1, "done", 1, "go test ./x -run TestOne; ok", "row 1 done | works | next", 1)
	r.Body += "\ntokens: 234\ncost: 0.5\n"
	n, _, err := Admit(l, r)
	if err != nil {
		t.Fatal(err)
	}
	if got := n.Delivery.Spent.String(); got != "1234 tokens, $0.50" {
		t.Errorf("spent: %q", got)
	}
	text := string(Format(n))
	if !strings.Contains(text, "spent: 1234 tokens, $0.50\n") {
		t.Fatalf("the ledger does not keep the total:\n%s", text)
	}
	again, ds := Parse("plans/x-ledger.md", []byte(text))
	if Fatal(ds) || string(Format(again)) != text {
		t.Errorf("not byte-stable (%v):\n%s", ds, Format(again))
	}
}

func TestSpentIsValidated(t *testing.T) {
	for _, v := range []string{"12 coins", "$1.5", "01 tokens"} {
		if msg := validateDelivery(KeySpent, v); msg == "" {
			t.Errorf("spent: %s was accepted", v)
		}
	}
	for _, v := range []string{"12 tokens", "$1.50", "3 tokens, $0.0123"} {
		if msg := validateDelivery(KeyBudgetGranted, v); msg != "" {
			t.Errorf("budget-granted: %s: %s", v, msg)
		}
	}
}

func TestBudgetRequest(t *testing.T) {
	r, err := ParseRequest("- budget +5000 tokens | the refactor is bigger than planned")
	if err != nil || r.Kind != RequestBudget || r.Amount != (specs.Amount{Tokens: 5000}) || r.Text != "the refactor is bigger than planned" {
		t.Fatalf("%+v %v", r, err)
	}
	for _, bad := range []string{"- budget 5000 tokens | why", "- budget +5000 | why", "- budget +$5", "- budget +0 tokens | why"} {
		if _, err := ParseRequest(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	spec := &specs.Spec{Budget: &specs.Amount{Tokens: 2000}}
	l := ledgerOf(t, 4, []string{"open/0"}, seeded)
	l.Delivery.Spent = specs.Amount{Tokens: 2500}
	why, over := OverBudget(l, spec)
	if !over || why != "the agents spent 2500 tokens of a budget of 2000 tokens" {
		t.Fatalf("OverBudget = %q %v", why, over)
	}
	stopped, _ := Stop(l, StopBudget, why, 0)
	if _, _, err := ApplyRequest(l, r, now); err == nil {
		t.Errorf("budget was accepted without a budget stop")
	}
	n, c, err := ApplyRequest(stopped, r, now)
	if err != nil {
		t.Fatal(err)
	}
	if _, _, still := n.Stop(); still || c.Subject != "loop: raise budget" || n.Delivery.BudgetGranted.String() != "5000 tokens" {
		t.Errorf("%s: stop cleared %v, granted %q", c.Subject, !still, n.Delivery.BudgetGranted.String())
	}
	if b, _ := n.Budget(spec); b != (specs.Amount{Tokens: 7000}) {
		t.Errorf("budget %v, want 7000 tokens", b)
	}
	if _, over := OverBudget(n, spec); over {
		t.Errorf("still over budget after the grant")
	}
	if _, over := OverBudget(n, &specs.Spec{}); over {
		t.Errorf("a spec without a budget is over budget")
	}
}
