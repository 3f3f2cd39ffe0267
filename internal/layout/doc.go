// Package layout holds no code: its test keeps the project's dependency
// arrows pointing one way (cmd → daemon → tools → internal → protocol), so
// that a helper package never reaches back up into the tool framework, the
// daemon or the command line.
package layout
