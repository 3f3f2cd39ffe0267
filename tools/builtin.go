package tools

import "github.com/tether-dev/tether/internal/tool"

// Builtin returns the registry of every tool Tether offers, in the order
// they are listed to clients.
func Builtin() *tool.Registry {
	var reg *tool.Registry
	reg = tool.NewRegistry(
		ReadFile,
		ListDir,
		Glob,
		Grep,
		Problems,
		Todo,
		AskUser,
		WriteFile,
		EditFile,
		MultiEdit,
		MoveFile,
		DeleteFile,
		Shell,
		ShellOutput,
		ShellKill,
		Compose(func() *tool.Registry { return reg }),
	)
	return reg
}
