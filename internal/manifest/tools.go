package manifest

import (
	"encoding/json"
	"strings"
	"unicode"

	"github.com/tether-dev/tether/protocol"
)

// ToolPrefix is prepended to every tool name registered in VS Code, so
// Tether's tools cannot collide with another extension's.
const ToolPrefix = "tether_"

// LanguageModelTool is one entry of package.json's
// contributes.languageModelTools, in the field order VS Code documents.
type LanguageModelTool struct {
	Name                    string          `json:"name"`
	DisplayName             string          `json:"displayName"`
	ToolReferenceName       string          `json:"toolReferenceName"`
	CanBeReferencedInPrompt bool            `json:"canBeReferencedInPrompt"`
	Icon                    string          `json:"icon"`
	UserDescription         string          `json:"userDescription"`
	ModelDescription        string          `json:"modelDescription"`
	Tags                    []string        `json:"tags"`
	InputSchema             json.RawMessage `json:"inputSchema"`
	// When hides a tool from the model and the tool picker when false.
	When string `json:"when,omitempty"`
}

// icons picks a codicon per tool; a tool missing here gets defaultIcon, so
// a new tool never breaks generation.
var icons = map[string]string{
	"read_file":      "$(file)",
	"list_dir":       "$(folder-opened)",
	"glob":           "$(files)",
	"grep":           "$(search)",
	"problems":       "$(warning)",
	"todo":           "$(checklist)",
	"ask_user":       "$(question)",
	"web_search":     "$(globe)",
	"web_fetch":      "$(cloud-download)",
	"remember":       "$(bookmark)",
	"memory_read":    "$(book)",
	"memory_search":  "$(search-fuzzy)",
	"memory_archive": "$(archive)",
	"write_file":     "$(new-file)",
	"edit_file":      "$(edit)",
	"multi_edit":     "$(replace-all)",
	"move_file":      "$(arrow-swap)",
	"delete_file":    "$(trash)",
	"shell":          "$(terminal)",
	"shell_output":   "$(output)",
	"shell_kill":     "$(debug-stop)",
	"compose":        "$(code)",
}

const defaultIcon = "$(tools)"

// displayNames overrides the title-cased tool name where that reads badly.
var displayNames = map[string]string{
	"list_dir":   "List Directory",
	"multi_edit": "Multiple Edits",
	"todo":       "Plan (To-do List)",
}

// LanguageModelTools turns the registry's descriptions into package.json
// entries, in registry order.
func LanguageModelTools(infos []protocol.ToolInfo) []LanguageModelTool {
	out := make([]LanguageModelTool, 0, len(infos))
	for _, t := range infos {
		schema := t.InputSchema
		if len(schema) == 0 {
			schema = json.RawMessage(`{"type":"object","properties":{}}`)
		}
		out = append(out, LanguageModelTool{
			Name:                    ToolPrefix + t.Name,
			DisplayName:             displayName(t.Name),
			ToolReferenceName:       t.Name,
			CanBeReferencedInPrompt: true,
			Icon:                    icon(t.Name),
			UserDescription:         t.Summary(),
			ModelDescription:        t.Description,
			Tags:                    tags(t),
			InputSchema:             schema,
		})
	}
	return out
}

func icon(name string) string {
	if i, ok := icons[name]; ok {
		return i
	}
	return defaultIcon
}

// displayName turns read_file into "Read File".
func displayName(name string) string {
	if d, ok := displayNames[name]; ok {
		return d
	}
	words := strings.Split(name, "_")
	for i, w := range words {
		r := []rune(w)
		if len(r) > 0 {
			r[0] = unicode.ToUpper(r[0])
		}
		words[i] = string(r)
	}
	return strings.Join(words, " ")
}

// tags let users and tool sets pick Tether's tools as a group, or only the
// ones that cannot change anything.
func tags(t protocol.ToolInfo) []string {
	out := []string{"tether"}
	if t.ReadOnly {
		out = append(out, "tether-read-only")
	} else {
		out = append(out, "tether-changes")
	}
	return out
}
