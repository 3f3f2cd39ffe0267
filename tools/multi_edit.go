package tools

import (
	"context"
	_ "embed"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/edit"
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

type multiEditArgs struct {
	Path  string        `json:"path" jsonschema:"File to edit: relative to the workspace folder, or absolute. It must have been read with read_file."`
	Edits []oneEditArgs `json:"edits" jsonschema:"The replacements, applied in order, each to the result of the ones before."`
}

type oneEditArgs struct {
	OldString  string `json:"old_string" jsonschema:"The exact text to replace, as the file holds it after the edits before this one, without read_file's line-number gutter."`
	NewString  string `json:"new_string" jsonschema:"The text to put in its place. Empty deletes old_string."`
	ReplaceAll bool   `json:"replace_all,omitempty" jsonschema:"Replace every occurrence instead of requiring exactly one. Default false."`
}

//go:embed multi_edit.md
var multiEditDoc string

// MultiEdit is the multi_edit tool.
var MultiEdit = tool.New(tool.Def[multiEditArgs]{
	Name:            "multi_edit",
	Doc:             multiEditDoc,
	UserDescription: "Make several replacements in a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first, with a unified diff",
	ChangesFiles:    true,
	Tune: func(s *jsonschema.Schema) {
		edits := s.Properties["edits"]
		// A Go slice infers as "array or null"; null is no list of edits.
		edits.Types, edits.Type = nil, "array"
		edits.MinItems = jsonschema.Ptr(1)
	},
	Describe: func(a multiEditArgs) string { return fmt.Sprintf("Making %d edits in %s", len(a.Edits), a.Path) },
	Run: func(ctx context.Context, c *tool.Call, a multiEditArgs) (tool.Result, error) {
		edits := make([]edit.Edit, len(a.Edits))
		for i, e := range a.Edits {
			edits[i] = edit.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll}
		}
		return runEdits(ctx, c, a.Path, edits)
	},
})
