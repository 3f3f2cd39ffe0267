package tool

import (
	"errors"
	"fmt"
	"io/fs"
	"os"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Refusal is a guard's answer to a call it will not carry out as asked: a
// path outside the workspace, a file not read first, a file that changed
// since. Its text is advice for the model, which can act on it. A guard
// returns it as an error so that the tool can hand it on unchanged; the
// Registry finds it with errors.As and makes it the call's IsError result.
// Any other error a tool returns is a fault of the machine below it.
type Refusal struct {
	err error
}

// Refusef makes a Refusal whose text, formatted as by fmt.Errorf (so %w
// keeps the cause for errors.Is), tells the model what to do next.
func Refusef(format string, args ...any) error {
	return &Refusal{err: fmt.Errorf(format, args...)}
}

// Refuse marks err, whose text is already written for the model (a
// validator's own message, such as an argument out of range), as a
// refusal. It is for errors that cannot come from a fault: never wrap an
// error of the file system or the network with it.
func Refuse(err error) error {
	if err == nil {
		return nil
	}
	return &Refusal{err: err}
}

func (r *Refusal) Error() string { return r.err.Error() }

func (r *Refusal) Unwrap() error { return r.err }

// IsRefusal reports whether err is, or wraps, a Refusal.
func IsRefusal(err error) bool {
	var r *Refusal
	return errors.As(err, &r)
}

// FileTrouble sorts an error the file system gave while Tether tried to
// verb (open, read, list, check) the file the model calls name. What the
// model or the user can act on is a refusal whose text names it: the file
// is missing, may not be read, is not a regular file, a part of its path
// is not a folder, the name is too long or loops through links. Anything
// else (an I/O error, a full disk, a mount that went away) is a fault of
// this machine: it is returned with the operation and path, for the
// Registry to log and to tell the model that Tether failed.
func FileTrouble(verb, name string, err error) error {
	if err == nil {
		return nil
	}
	if Actionable(err) {
		return Refusef("cannot %s %s: %w", verb, name, err)
	}
	var pe *fs.PathError
	var le *os.LinkError
	if errors.As(err, &pe) || errors.As(err, &le) {
		return err // it names its operation and path already
	}
	return &fs.PathError{Op: verb, Path: name, Err: err}
}

// Actionable reports whether a file-system error is a state of the world
// that the model or the user can act on (see FileTrouble), rather than a
// fault of the machine.
func Actionable(err error) bool {
	switch {
	case errors.Is(err, fs.ErrNotExist), errors.Is(err, fs.ErrPermission), errors.Is(err, fs.ErrExist),
		errors.Is(err, fsatomic.ErrNotRegular), errors.Is(err, fsatomic.ErrReadOnly):
		return true
	}
	return actionableErrno(err)
}
