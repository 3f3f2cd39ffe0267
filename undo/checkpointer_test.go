package undo_test

import (
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/undo"
)

// The tools reach the store only through tool.Checkpointer.
var _ tool.Checkpointer = (*undo.Store)(nil)
