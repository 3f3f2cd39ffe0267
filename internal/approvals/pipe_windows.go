package approvals

import (
	"context"
	"errors"
	"fmt"
	"net"

	"github.com/Microsoft/go-winio"
	"golang.org/x/sys/windows"

	"github.com/tether-dev/tether/internal/project"
)

// Address is the named pipe the project rooted at root takes its
// questions on. Pipe names are seen by every user of the machine, so the
// name carries the user's SID, and each side checks the other's user
// anyway: a pipe someone else made under that name is refused.
func Address(root string) (string, error) {
	sid, err := userSID()
	if err != nil {
		return "", err
	}
	return `\\.\pipe\tether-` + sid.String() + "-" + project.Key(root), nil
}

// userSID is the SID of the user this process runs as.
func userSID() (*windows.SID, error) {
	u, err := windows.GetCurrentProcessToken().GetTokenUser()
	if err != nil {
		return nil, fmt.Errorf("reading this process's user: %w", err)
	}
	return u.User.Sid, nil
}

// listen makes the project's pipe, which only the owner may open (its
// DACL grants this user alone, and no one inherits). The first instance
// is made exclusively, so a second approver, or a pipe someone else made
// first, is an error, never a shared name. A pipe goes with the process
// that made it: no stale pipe outlives a crash.
func listen(root string) (net.Listener, string, func(), error) {
	path, err := Address(root)
	if err != nil {
		return nil, "", nil, err
	}
	sid, err := userSID()
	if err != nil {
		return nil, "", nil, err
	}
	ln, err := winio.ListenPipe(path, &winio.PipeConfig{SecurityDescriptor: "D:P(A;;GA;;;" + sid.String() + ")"})
	if err != nil {
		if errors.Is(err, windows.ERROR_ACCESS_DENIED) || errors.Is(err, windows.ERROR_PIPE_BUSY) || errors.Is(err, windows.ERROR_ALREADY_EXISTS) {
			return nil, "", nil, ErrBusy
		}
		return nil, "", nil, err
	}
	return ln, path, func() {}, nil
}

// dial reaches the project's approver, if one listens.
func dial(ctx context.Context, root string) (net.Conn, error) {
	path, err := Address(root)
	if err != nil {
		return nil, err
	}
	c, err := winio.DialPipeContext(ctx, path)
	if err != nil {
		if errors.Is(err, windows.ERROR_FILE_NOT_FOUND) {
			return nil, ErrNoApprover
		}
		return nil, err
	}
	return c, nil
}

// peerIsUs checks that the process at the other end of the pipe runs as
// this user.
func peerIsUs(c net.Conn) error {
	f, ok := c.(interface{ Fd() uintptr })
	if !ok {
		return fmt.Errorf("not a named pipe: %T", c)
	}
	h := windows.Handle(f.Fd())
	var pid uint32
	if err := windows.GetNamedPipeClientProcessId(h, &pid); err != nil || pid == windows.GetCurrentProcessId() {
		// This end is the client: the peer is the server.
		if err := windows.GetNamedPipeServerProcessId(h, &pid); err != nil {
			return fmt.Errorf("reading the pipe's peer: %w", err)
		}
	}
	return sameUser(pid)
}

// sameUser checks that process pid runs as this process's user.
func sameUser(pid uint32) error {
	me, err := userSID()
	if err != nil {
		return err
	}
	p, err := windows.OpenProcess(windows.PROCESS_QUERY_LIMITED_INFORMATION, false, pid)
	if err != nil {
		return fmt.Errorf("opening the peer process %d: %w", pid, err)
	}
	defer windows.CloseHandle(p)
	var tok windows.Token
	if err := windows.OpenProcessToken(p, windows.TOKEN_QUERY, &tok); err != nil {
		return fmt.Errorf("reading the peer process's user: %w", err)
	}
	defer tok.Close()
	u, err := tok.GetTokenUser()
	if err != nil {
		return fmt.Errorf("reading the peer process's user: %w", err)
	}
	if !u.User.Sid.Equals(me) {
		return fmt.Errorf("the peer runs as %s, not as this user (%s)", u.User.Sid, me)
	}
	return nil
}
