package daemon

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
)

// The README's Limits section and settings table state the daemon's
// bounds; they are typed by hand, so this test holds them to the code.
func TestREADMEStatesTheLimitsInForce(t *testing.T) {
	raw, err := os.ReadFile("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	readme := string(raw)
	_, limits, ok := strings.Cut(readme, "### Limits\n")
	if !ok {
		t.Fatal("the README has no Limits section")
	}
	limits, _, _ = strings.Cut(limits, "\n#")
	limits = strings.Join(strings.Fields(limits), " ") // lines wrap anywhere
	words := map[int]string{2: "twice", 3: "three times", 4: "four times", 5: "five times"}
	for _, want := range []string{
		"at most " + mib(MaxMessageBytes),
		"at most " + strconv.Itoa(maxJSONDepth) + " deep",
		"at most " + thousands(maxJSONValues) + " JSON values",
		"Up to " + words[parkedPerSlot] + " as many",
		"(and " + mib(maxParkedBytes) + " of them)",
		"At most " + mib(maxQueuedOutput) + " of replies",
	} {
		if !strings.Contains(limits, want) {
			t.Errorf("the README's Limits section does not say %q", want)
		}
	}
	row := fmt.Sprintf("| `maxCallsInFlight` | %d | how many calls run at once (at most %d)", DefaultMaxCallsInFlight, MaxCallsInFlightLimit)
	if !strings.Contains(readme, row) {
		t.Errorf("the README's settings table has no row starting %q", row)
	}
}

func mib(n int) string { return strconv.Itoa(n>>20) + " MiB" }

// thousands writes n with commas between groups of three digits.
func thousands(n int) string {
	s := strconv.Itoa(n)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
