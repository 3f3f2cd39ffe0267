package main

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/compose"
	"github.com/tether-dev/tether/internal/memory"
	"github.com/tether-dev/tether/internal/shell"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/internal/web"
	"github.com/tether-dev/tether/internal/web/convert"
	"github.com/tether-dev/tether/internal/web/fetch"
	"github.com/tether-dev/tether/undo"
)

// The README's settings table gives each setting's default by hand; this
// test holds every number there to the default the code applies.
func TestREADMESettingsTableHasTheDefaultsInForce(t *testing.T) {
	numbers := map[string]int64{
		"tokenBudget":         tool.DefaultTokenBudget,
		"undoKeep":            undo.DefaultKeep,
		"shellTimeout":        int64(shell.DefaultTimeout / time.Second),
		"diagnosticsSettleMs": int64(tool.DefaultSettleTime / time.Millisecond),
		"agentMaxTurns":       tool.DefaultAgentMaxTurns,
		"memoryMaxBytes":      memory.DefaultMaxBytes,
		"webTimeout":          int64(web.DefaultTimeout / time.Second),
		"webMaxBytes":         web.DefaultMaxBytes,
		"composeTimeout":      int64(compose.DefaultTimeout / time.Second),
		"composeMemoryBytes":  compose.DefaultMemoryBytes,
		"composeMaxCalls":     compose.DefaultMaxCalls,
		"maxCallsInFlight":    daemon.DefaultMaxCallsInFlight,
	}
	// Settings whose default is a word, not a number.
	words := map[string]bool{"permissionMode": true, "rgPath": true, "logLevel": true, "webAllowedHosts": true,
		"webPrivateHosts": true, "webSearchEndpoint": true, "braveApiKey": true}

	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, table, ok := strings.Cut(string(raw), "| setting | default | meaning |\n| --- | --- | --- |\n")
	if !ok {
		t.Fatal("the README has no settings table")
	}
	table, _, _ = strings.Cut(table, "\n\n")
	seen := map[string]bool{}
	for _, row := range strings.Split(table, "\n") {
		cells := strings.Split(row, " | ")
		if len(cells) < 3 {
			t.Errorf("a row of the settings table is not a row: %q", row)
			continue
		}
		name := strings.Trim(strings.TrimPrefix(cells[0], "| "), "`")
		seen[name] = true
		want, isNumber := numbers[name]
		switch {
		case isNumber:
			first, _, _ := strings.Cut(cells[1], " ")
			got, err := strconv.ParseInt(first, 10, 64)
			if err != nil || got != want {
				t.Errorf("the README gives %s a default of %q; the code's is %d", name, cells[1], want)
			}
		case !words[name]:
			t.Errorf("the README's settings table has %s, which this test does not know: add its default here", name)
		}
	}
	for name := range numbers {
		if !seen[name] {
			t.Errorf("the README's settings table has no row for %s", name)
		}
	}
}

// The Limits section states the daemon's bounds in words; this test holds
// each to the constant that enforces it.
func TestREADMEStatesTheDaemonLimitsInForce(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	_, limits, ok := strings.Cut(string(raw), "### Limits\n")
	if !ok {
		t.Fatal("the README has no Limits section")
	}
	limits, _, _ = strings.Cut(limits, "\nPermission modes:")
	limits = strings.Join(strings.Fields(limits), " ") // lines wrap anywhere
	mib := func(n int64) string { return strconv.FormatInt(n>>20, 10) + " MiB" }
	words := map[int]string{2: "twice", 3: "three times", 4: "four times", 5: "five times"}
	for _, want := range []string{
		"at most " + mib(daemon.MaxMessageBytes),
		"at most " + strconv.Itoa(daemon.MaxJSONDepth) + " deep",
		"at most " + thousands(daemon.MaxJSONValues) + " JSON values",
		"Up to " + words[daemon.ParkedPerSlot] + " as many",
		"(and " + mib(daemon.MaxParkedBytes) + " of them)",
		"At most " + mib(daemon.MaxQueuedOutput) + " of replies",
		"At most `maxCallsInFlight` calls run at once",
	} {
		if !strings.Contains(limits, want) {
			t.Errorf("the README's Limits section does not say %q", want)
		}
	}
	row := fmt.Sprintf("| `maxCallsInFlight` | %d | how many calls run at once (at most %d)", daemon.DefaultMaxCallsInFlight, daemon.MaxCallsInFlightLimit)
	if !strings.Contains(string(raw), row) {
		t.Errorf("the README's settings table has no row starting %q", row)
	}
}

// The web and compose sections state their tools' limits in words; this
// test holds each to the constant that enforces it.
func TestREADMEStatesTheToolLimitsInForce(t *testing.T) {
	raw, err := os.ReadFile("../../README.md")
	if err != nil {
		t.Fatal(err)
	}
	section := func(heading string) string {
		_, s, ok := strings.Cut(string(raw), "\n"+heading+"\n")
		if !ok {
			t.Fatalf("the README has no section %q", heading)
		}
		s, _, _ = strings.Cut(s, "\n## ")
		return strings.Join(strings.Fields(s), " ") // lines wrap anywhere
	}
	itoa := func(n int64) string { return strconv.FormatInt(n, 10) }
	mb := func(n int64) string { return itoa(n>>20) + " MB" }
	for heading, phrases := range map[string][]string{
		"## Web tools": {
			"URLs over " + thousands(fetch.MaxURLLength) + " characters",
			"at most " + itoa(fetch.MaxRedirects) + ", only within the same scheme",
			"(" + itoa(int64(web.CacheTTL/time.Minute)) + " minutes, " + mb(web.PageCacheBytes) + ")",
			itoa(int64(fetch.DefaultTimeout/time.Second)) + " s and " + mb(fetch.DefaultMaxBytes) + " per fetch",
			"at most " + mb(convert.MaxInput) + " of HTML",
		},
		"## Compose programs": {
			"source " + itoa(compose.DefaultSourceBytes>>10) + " KB, memory " + mb(compose.DefaultMemoryBytes) +
				", time " + itoa(int64(compose.DefaultTimeout/time.Second)) + " s, " + itoa(compose.DefaultMaxCalls) + " tool calls, " +
				itoa(compose.MaxConcurrentCalls) + " calls at once (the rest wait their turn), " + itoa(compose.MaxLogLines) + " log lines",
		},
	} {
		text := section(heading)
		for _, p := range phrases {
			if !strings.Contains(text, p) {
				t.Errorf("the README's %q section does not say %q", heading, p)
			}
		}
	}
}

// thousands writes n with commas between groups of three digits.
func thousands(n int64) string {
	s := strconv.FormatInt(n, 10)
	for i := len(s) - 3; i > 0; i -= 3 {
		s = s[:i] + "," + s[i:]
	}
	return s
}
