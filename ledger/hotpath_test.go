package ledger

import (
	"regexp"
	"strings"
	"testing"
)

// The byte scans on the parse hot path replace simpler code; these tests
// pin them to that code, which stays here as the reference.

func hasControlReference(s string) bool {
	for _, r := range s {
		if isControl(r) {
			return true
		}
	}
	return false
}

func TestHasControlMatchesReference(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		s    string
		want bool
	}{
		{"empty", "", false},
		{"plain ascii longer than a word", "attempt 3 on endpoint 7: the handler answered", false},
		{"tab in a word", "answered\tin 3 ms", true},
		{"newline at the end of a word", "1234567\nabc", true},
		{"DEL", "abcdefgh\x7fijk", true},
		{"NUL at the start", "\x00abcdefghij", true},
		{"C1 control NEL", "abcdefgh\u0085ijk", true},
		{"C1 control split across words", "abcdefg\u0085ijk", true},
		{"no-break space is not a control", "abcdefgh\u00a0ijk", false},
		{"accented letters", "réponse très rapide, même à 99 ms", false},
		{"0xc2 then a non-C1 byte at the end", "abcdefg\u00a9", false},
		{"tilde is printable", "~~~~~~~~~~~~", false},
		{"control in the tail", "abcdefgh\x1f", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := hasControl(tt.s); got != tt.want {
				t.Errorf("hasControl(%q) = %v, want %v", tt.s, got, tt.want)
			}
			if ref := hasControlReference(tt.s); ref != tt.want {
				t.Errorf("reference(%q) = %v, want %v", tt.s, ref, tt.want)
			}
		})
	}
	// Every byte value at every offset of a two-word string, alone and as
	// the lead byte of a two-byte sequence, against the reference.
	base := []byte("abcdefghijklmnopq")
	for off := range base {
		for b := 0; b < 256; b++ {
			for _, next := range []byte{'a', 0x80, 0x9f, 0xa0} {
				s := append([]byte(nil), base...)
				s[off] = byte(b)
				if off+1 < len(s) {
					s[off+1] = next
				}
				if got, want := hasControl(string(s)), hasControlReference(string(s)); got != want {
					t.Fatalf("hasControl(%q) = %v, reference says %v", s, got, want)
				}
			}
		}
	}
}

func TestCutSlotsMatchesStringsCut(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "|", " | ", "a | b", "a|b | c", "a |b | c", "a| b | c", "a  |  b", "a | b | c",
		"| b", "a |", "a | ", " | b", "||| | |", "a \\| b | c", "a | | b", "é | ü",
	} {
		t.Run(s, func(t *testing.T) {
			b1, a1, ok1 := cutSlots(s)
			b2, a2, ok2 := strings.Cut(s, " | ")
			if b1 != b2 || a1 != a2 || ok1 != ok2 {
				t.Errorf("cutSlots(%q) = %q, %q, %v; strings.Cut gives %q, %q, %v", s, b1, a1, ok1, b2, a2, ok2)
			}
		})
	}
}

func TestIsWholeNumberMatchesRegexp(t *testing.T) {
	t.Parallel()
	ref := regexp.MustCompile(`^(0|[1-9][0-9]*)$`)
	for _, s := range []string{
		"", "0", "00", "01", "1", "9", "10", "120", "007", "-1", "+1", " 1", "1 ", "1a", "a1",
		"1.0", "１", "٣", "99999999999999999999999", "0x1", "1\n",
	} {
		t.Run(s, func(t *testing.T) {
			if got, want := isWholeNumber(s), ref.MatchString(s); got != want {
				t.Errorf("isWholeNumber(%q) = %v, the grammar's regexp says %v", s, got, want)
			}
		})
	}
}
