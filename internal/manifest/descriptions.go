package manifest

import (
	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// DescriptionsGoPath is the generated table of the built-in tools'
// descriptions for the default settings, relative to the repository root,
// so that the program renders no template when it lists the tools (see
// tool.SetBuiltDescriptions).
const DescriptionsGoPath = "tools/descriptions_gen.go"

// DescriptionsGo renders the table of ts' descriptions for the default
// settings, each rendered now. The descriptions of some tools depend on
// the platform (the shell's names its shell and sandbox), so the table is
// made on Linux, where CI makes it, and elsewhere those miss it and are
// rendered at run time.
func DescriptionsGo(ts []tool.Tool) ([]byte, error) {
	s, err := tool.NewSettings(protocol.Settings{})
	if err != nil {
		return nil, err
	}
	var entries []tableEntry
	for _, t := range ts {
		if key := tool.DescriptionKey(t, &s); key != "" {
			entries = append(entries, tableEntry{key, tool.RenderedDescription(t, &s)})
		}
	}
	return builtTable(table{
		from:   "the tools' descriptions\n// and the default settings",
		setter: "SetBuiltDescriptions",
		fn:     "builtDescription",
		doc:    "builtDescription is a built-in tool's description for the values it is\n// rendered from, by tool.DescriptionKey.",
	}, entries)
}

// WriteDescriptions rewrites DescriptionsGoPath under root when it
// changes, and says whether it did.
func WriteDescriptions(root string, ts []tool.Tool) (changed []string, err error) {
	want, err := DescriptionsGo(ts)
	if err != nil {
		return nil, err
	}
	return writeChanged(root, []string{DescriptionsGoPath}, map[string][]byte{DescriptionsGoPath: want})
}

// DescriptionsDrift is the diff from DescriptionsGoPath under root to
// what ts generate; empty means they are in step.
func DescriptionsDrift(root string, ts []tool.Tool) (string, error) {
	want, err := DescriptionsGo(ts)
	if err != nil {
		return "", err
	}
	return fileDrift(root, DescriptionsGoPath, want)
}
