package shell

import (
	"testing"

	"go.uber.org/goleak"
)

// Every test must leave no goroutine behind: the copier and the waiter of
// each command end when it does.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m)
}
