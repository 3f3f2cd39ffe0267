package shell

import (
	"math"
	"strings"
	"testing"
	"time"
)

func TestTimeout(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	tests := []struct {
		name    string
		seconds *float64
		def     time.Duration
		want    time.Duration
		clamped bool
		err     string
	}{
		{"absent is the default", nil, 0, DefaultTimeout, false, ""},
		{"absent with a host default", nil, 5 * time.Minute, 5 * time.Minute, false, ""},
		{"in range", f(30), 0, 30 * time.Second, false, ""},
		{"fractional", f(1.5), 0, 1500 * time.Millisecond, false, ""},
		{"at the ceiling", f(600), 0, MaxTimeout, false, ""},
		{"above the ceiling is clamped", f(3600), 0, MaxTimeout, true, ""},
		{"huge is clamped, not overflowed", f(1e300), 0, MaxTimeout, true, ""},
		{"a larger host default raises the ceiling", f(3600), 20 * time.Minute, 20 * time.Minute, true, ""},
		{"zero", f(0), 0, 0, false, "positive"},
		{"negative", f(-5), 0, 0, false, "positive"},
		{"not a number", f(math.NaN()), 0, 0, false, "positive"},
		{"infinite", f(math.Inf(1)), 0, 0, false, "positive"},
		{"too small to be a duration", f(1e-12), 0, 0, false, "too small"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, clamped, err := Timeout(tt.seconds, tt.def)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("Timeout error = %v, want one saying %q", err, tt.err)
				}
				return
			}
			if err != nil || got != tt.want || clamped != tt.clamped {
				t.Errorf("Timeout = %v, %v, %v; want %v, %v", got, clamped, err, tt.want, tt.clamped)
			}
		})
	}
}
