package tools

import (
	"context"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/tether-dev/tether/internal/edit"
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

// MultiEdit is the multi_edit tool.
var MultiEdit = New(Def[multiEditArgs]{
	Name: "multi_edit",
	Description: `Make several replacements in one file as one change, all or nothing. ` +
		`The edits apply in order, each to the result of the ones before; if any edit fails (its old_string is not found, or is found more than once without replace_all), nothing is written and the error names the failing edit (1-based) and why, with the closest part of the file when text was not found. ` +
		`Each edit follows edit_file's rules: old_string matches exactly and once unless replace_all is set, copied without read_file's line-number gutter; the file keeps its own line endings. ` +
		`The file must have been read with read_file and not changed since. ` +
		`Prefer it to several edit_file calls on one file; mind that an earlier edit can change text a later one looks for. The user approves the whole change, seeing one diff.`,
	UserDescription: "Make several replacements in a file",
	Risk:            protocol.RiskHigh,
	Permission:      "asks first, with a unified diff",
	Tune: func(s *jsonschema.Schema) {
		edits := s.Properties["edits"]
		// A Go slice infers as "array or null"; null is no list of edits.
		edits.Types, edits.Type = nil, "array"
		edits.MinItems = jsonschema.Ptr(1)
	},
	Describe: func(a multiEditArgs) string { return fmt.Sprintf("Making %d edits in %s", len(a.Edits), a.Path) },
	Run: func(ctx context.Context, c *Call, a multiEditArgs) Result {
		edits := make([]edit.Edit, len(a.Edits))
		for i, e := range a.Edits {
			edits[i] = edit.Edit{Old: e.OldString, New: e.NewString, ReplaceAll: e.ReplaceAll}
		}
		return c.runEdits(ctx, a.Path, edits)
	},
})
