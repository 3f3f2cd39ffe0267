package tool

import (
	"strings"
	"testing"
)

// The third identical call in a row is refused; the same arguments
// reordered or respaced are the same call, and any other call in between
// starts the count again.
func TestCheckRepeat(t *testing.T) {
	for _, tc := range []struct {
		name  string
		calls []string // tool and arguments, "tool args"
		third bool     // whether the last call is refused
	}{
		{"identical", []string{`read {"path":"a"}`, `read {"path":"a"}`, `read {"path":"a"}`}, true},
		{"reordered and respaced", []string{`read {"path":"a","limit":5}`, `read { "limit" : 5 , "path" : "a" }`, `read {"limit":5,"path":"a"}`}, true},
		{"nested arrays keep their order", []string{`todo {"items":[1,2]}`, `todo {"items":[1,2]}`, `todo {"items":[2,1]}`}, false},
		{"another value", []string{`read {"path":"a"}`, `read {"path":"a"}`, `read {"path":"b"}`}, false},
		{"another tool", []string{`read {"path":"a"}`, `read {"path":"a"}`, `glob {"path":"a"}`}, false},
		{"a call between", []string{`read {"path":"a"}`, `glob {"pattern":"x"}`, `read {"path":"a"}`}, false},
		{"a number is not its string", []string{`read {"limit":5}`, `read {"limit":5}`, `read {"limit":"5"}`}, false},
		{"not JSON, identical", []string{`read {path:a}`, `read {path:a}`, `read {path:a}`}, true},
		{"key and value are not swapped", []string{`x {"a":"b"}`, `x {"a":"b"}`, `x {"b":"a"}`}, false},
		// A string is looked through for its closing quote only: an escaped
		// quote or a run of backslashes before it must not end it early.
		{"escaped quote, same", []string{`w {"c":"a\"b","p":1}`, `w {"p":1, "c":"a\"b"}`, `w {"c":"a\"b","p":1}`}, true},
		{"escaped quote, then another value", []string{`w {"c":"a\"b","p":1}`, `w {"c":"a\"b","p":1}`, `w {"c":"a\"b","p":2}`}, false},
		{"backslashes before the closing quote", []string{`w {"c":"a\\\\","p":1}`, `w {"c":"a\\\\","p":1}`, `w {"c":"a\\\\","p":2}`}, false},
		{"text after an escaped quote differs", []string{`w {"c":"x\"y"}`, `w {"c":"x\"y"}`, `w {"c":"x\"z"}`}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := NewSession()
			var err error
			for i, c := range tc.calls {
				name, args, _ := strings.Cut(c, " ")
				err = s.CheckRepeat(name, []byte(args))
				if i < 2 && err != nil {
					t.Fatalf("call %d refused: %v", i+1, err)
				}
			}
			if (err != nil) != tc.third {
				t.Fatalf("third call refused: %v, want %v", err, tc.third)
			}
		})
	}
}
