package shell

// Platform is what runs commands on this system, and what it can promise
// about stopping them, for the shell tool's description.
type Platform struct {
	// Shell names the shell: "bash -c", "PowerShell".
	Shell string
	// POSIX says command lines are POSIX shell (bash or sh), which Tether
	// parses to know the programs a command runs; PowerShell's are not.
	POSIX bool
	// Limits says, in a sentence, what this system cannot promise about
	// stopping everything a command starts; "" when there is nothing.
	Limits string
}
