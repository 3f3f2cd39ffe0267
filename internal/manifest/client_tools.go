package manifest

import "encoding/json"

// ApprovalToolName is the tool the extension itself implements to put the
// daemon's approvals (a command, a fetch, a path outside the workspace) to
// the user as VS Code's own confirmation in the chat. It is not one of the
// daemon's tools: the model is never offered it (its when clause is false)
// and only the extension invokes it. Its id is named in package.json's
// configurationDefaults (chat.tools.eligibleForAutoApproval), which keeps
// VS Code from approving it by itself.
const ApprovalToolName = ToolPrefix + "approval"

// ClientTools are the entries of contributes.languageModelTools that the
// extension implements, after the registry's.
func ClientTools() []LanguageModelTool {
	return []LanguageModelTool{{
		Name:                    ApprovalToolName,
		DisplayName:             "Tether Approval",
		ToolReferenceName:       ApprovalToolName,
		CanBeReferencedInPrompt: false,
		Icon:                    "$(shield)",
		UserDescription:         "Asks you before Tether runs a command, fetches from the web or reads outside the workspace",
		ModelDescription:        "Used by Tether's own tools to ask the user for approval. Never call it yourself.",
		Tags:                    []string{"tether-internal"},
		InputSchema:             json.RawMessage(`{"type":"object","properties":{"command":{"type":"string"},"host":{"type":"string"},"path":{"type":"string"}}}`),
		When:                    "false",
	}}
}
