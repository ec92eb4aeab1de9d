package specs

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestParseAmount(t *testing.T) {
	tests := []struct {
		in   string
		want Amount
		err  bool
	}{
		{"500000 tokens", Amount{Tokens: 500000}, false},
		{"$20", Amount{Micros: 20_000_000}, false},
		{"$0.0123", Amount{Micros: 12300}, false},
		{"1234 tokens, $1.5", Amount{Tokens: 1234, Micros: 1_500_000}, false},
		{"0 tokens", Amount{}, false},
		{"", Amount{}, true},
		{"lots", Amount{}, true},
		{"$1.1234567", Amount{}, true},
		{"01 tokens", Amount{}, true},
		{"$1, 5 tokens", Amount{}, true},
		{"5 tokens, 6 tokens", Amount{}, true},
		{"-5 tokens", Amount{}, true},
		{"9999999999999999 tokens", Amount{}, true},
		{"$999999999.5", Amount{Micros: 999_999_999_500_000}, false},
	}
	for _, tc := range tests {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseAmount(tc.in)
			if (err != nil) != tc.err {
				t.Fatalf("error %v, want error %v", err, tc.err)
			}
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("(-want +got):\n%s", diff)
			}
		})
	}
}

func TestAmountString(t *testing.T) {
	for in, want := range map[Amount]string{
		{}:                                 "0 tokens",
		{Tokens: 7}:                        "7 tokens",
		{Micros: 12300}:                    "$0.0123",
		{Micros: 20_000_000}:               "$20.00",
		{Micros: 1_500_000}:                "$1.50",
		{Tokens: 3, Micros: 1_234_567}:     "3 tokens, $1.234567",
		{Tokens: 1 << 50, Micros: 1 << 50}: "1125899906842624 tokens, $1125899906.842624",
	} {
		if got := in.String(); got != want {
			t.Errorf("%+v: %q, want %q", in, got, want)
		}
	}
}

func TestAmountReaches(t *testing.T) {
	budget := Amount{Tokens: 100}
	if (Amount{Tokens: 99, Micros: 1 << 40}).Reaches(budget) || !(Amount{Tokens: 100}).Reaches(budget) {
		t.Errorf("a tokens budget judges tokens only")
	}
	if !(Amount{Micros: 5}).Reaches(Amount{Tokens: 100, Micros: 5}) {
		t.Errorf("either part of a budget stops")
	}
}

// Every amount ParseAmount accepts renders back to a form it accepts with
// the same value.
func FuzzParseAmount(f *testing.F) {
	f.Add("500000 tokens")
	f.Add("1234 tokens, $1.5")
	f.Add("$0.000001")
	f.Fuzz(func(t *testing.T, s string) {
		a, err := ParseAmount(s)
		if err != nil {
			return
		}
		b, err := ParseAmount(a.String())
		if err != nil || a != b {
			t.Errorf("%q -> %q -> %+v, %v", s, a.String(), b, err)
		}
	})
}
