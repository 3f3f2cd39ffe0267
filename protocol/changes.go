package protocol

// ChangeStatus says what became of the change a tool call was asked to
// make. It is the `status` of the structured content of an MCP result of
// a tool that changes files, so that a client reading only that content
// (VS Code hands it to the model in place of the text) never takes a
// change that did not happen for one that did. The values may grow;
// none is ever renamed.
type ChangeStatus string

const (
	StatusWritten   ChangeStatus = "written"   // on disk, in the request's undo checkpoint
	StatusUnchanged ChangeStatus = "unchanged" // nothing needed changing: the file already held it
	StatusStaged    ChangeStatus = "staged"    // dryRun kept it as a staged diff; the files are as they were
	StatusDeclined  ChangeStatus = "declined"  // the user answered no; nothing was changed
	StatusSkipped   ChangeStatus = "skipped"   // the user skipped the step (or dropped every hunk); nothing was changed
	// StatusRefused: it did not happen, and not by the user's answer: a
	// guard refused it (read the file first, it changed meanwhile), the
	// permission mode forbids it, nobody could be asked, or the call was
	// cancelled. The message says which, and what to do.
	StatusRefused ChangeStatus = "refused"
	// StatusFailed: a fault of this machine (the disk, the undo store)
	// stopped it; the message says what was and was not written.
	StatusFailed ChangeStatus = "failed"
)

// ChangeStatuses lists every ChangeStatus, in the order they are
// documented.
var ChangeStatuses = []ChangeStatus{StatusWritten, StatusUnchanged, StatusStaged, StatusDeclined, StatusSkipped, StatusRefused, StatusFailed}
