package shell

import (
	"fmt"
	"math"
	"time"
)

// DefaultTimeout stops a foreground command that runs longer than this.
const DefaultTimeout = 2 * time.Minute

// MaxTimeout is the most a call may ask for. A build or a full test suite
// fits; a server or a watcher does not, and belongs in a background job.
const MaxTimeout = 10 * time.Minute

// Timeout turns the seconds a call asked for (nil: it did not ask) into the
// command's timeout. The ceiling is MaxTimeout, or def when that is larger,
// so asking for more never yields less than asking for nothing. A request
// above the ceiling is clamped rather than refused, so an over-eager number
// still runs the command; clamped reports that. A value that is not a
// positive number, or too small to be a duration, is an error: silently
// using the default instead would kill a long command with a message that
// never mentions the ignored argument.
func Timeout(seconds *float64, def time.Duration) (d time.Duration, clamped bool, err error) {
	if def <= 0 {
		def = DefaultTimeout
	}
	if seconds == nil {
		return def, false, nil
	}
	s := *seconds
	if math.IsNaN(s) || math.IsInf(s, 0) || s <= 0 {
		return 0, false, fmt.Errorf("timeout must be a positive number of seconds, not %v. Leave it out for the default of %s, or give for example 300 for a slow build", s, seconds2(def))
	}
	ceiling := max(MaxTimeout, def)
	if s >= ceiling.Seconds() {
		return ceiling, s > ceiling.Seconds(), nil
	}
	d = time.Duration(s * float64(time.Second))
	if d <= 0 {
		return 0, false, fmt.Errorf("timeout %v seconds is too small to be a duration: give a number of seconds such as 30, or leave it out for the default of %s", s, seconds2(def))
	}
	return d, false, nil
}

// seconds2 says a duration in seconds, the unit the argument uses.
func seconds2(d time.Duration) string {
	return fmt.Sprintf("%g seconds", d.Seconds())
}
