package undo_test

import (
	"github.com/tether-dev/tether/tools"
	"github.com/tether-dev/tether/undo"
)

// The tools reach the store only through tools.Checkpointer.
var _ tools.Checkpointer = (*undo.Store)(nil)
