package main

import (
	"errors"
	"strings"
)

// folderList is a repeatable --workspace flag. An empty value is refused:
// it is what an unset variable in a client's configuration becomes, and
// taken as "no folder" it would widen the tools' reach to wherever the
// client happened to start tether, often the home folder.
type folderList []string

func (l *folderList) String() string { return strings.Join(*l, ",") }

func (l *folderList) Set(v string) error {
	if strings.TrimSpace(v) == "" {
		return errEmptyFolder
	}
	*l = append(*l, v)
	return nil
}

// errEmptyFolder is the flag package's reason for an empty --workspace; it
// prints it after the flag's name.
var errEmptyFolder = errors.New("the folder is empty (an unset variable in the client's configuration?): name the workspace folder, or leave the flag out")
