package tools

import "github.com/tether-dev/tether/internal/tool"

// Builtin returns the registry of every tool Tether offers, in the order
// they are listed to clients.
func Builtin() *tool.Registry {
	return tool.NewRegistry(
		ReadFile,
		ListDir,
		Glob,
		Grep,
		Problems,
		Todo,
		AskUser,
		Remember,
		MemoryRead,
		MemorySearch,
		MemoryArchive,
		WebSearch,
		WebFetch,
		WriteFile,
		EditFile,
		MultiEdit,
		MoveFile,
		DeleteFile,
		Shell,
		ShellOutput,
		ShellKill,
		Agent,
		Compose,
	)
}
