package tools

// Builtin returns the registry of every tool Tether offers, in the order
// they are listed to clients.
func Builtin() *Registry {
	return NewRegistry(
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
	)
}
