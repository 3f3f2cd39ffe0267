//go:build unix

package approvals

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// listen takes the project's channel: the lock beside the socket first
// (held for the listener's life: a live approver holds it, a crashed one
// held it no longer), then the socket, replacing one a crashed approver
// left behind.
func listen(root string) (net.Listener, string, func(), error) {
	path, err := Address(root)
	if err != nil {
		return nil, "", nil, err
	}
	return listenAt(path)
}

// listenAt takes the channel at the socket path.
func listenAt(path string) (net.Listener, string, func(), error) {
	lock, err := takeLock(path + ".lock")
	if err != nil {
		return nil, "", nil, err
	}
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		lock.Close()
		return nil, "", nil, fmt.Errorf("removing the stale socket %s: %w", path, err)
	}
	ln, err := net.ListenUnix("unix", &net.UnixAddr{Name: path, Net: "unix"})
	if err != nil {
		lock.Close()
		return nil, "", nil, err
	}
	// The folder already keeps everyone else out; the socket is the
	// owner's alone as well, whatever the umask made it.
	if err := os.Chmod(path, 0o600); err != nil {
		ln.Close()
		lock.Close()
		return nil, "", nil, err
	}
	ln.SetUnlinkOnClose(true)
	release := func() {
		// The socket and the lock go while the lock is still held: a
		// starter that opened the old lock file meanwhile finds it gone
		// once it holds it, and starts over (see takeLock).
		os.Remove(path)
		os.Remove(lock.Name())
		lock.Close()
	}
	return ln, path, release, nil
}

// takeLock holds the lock file at path for the caller, or fails with
// ErrBusy when a live approver holds it. A lock file its holder removed
// between our open and our lock is not the lock any more: try again.
func takeLock(path string) (*os.File, error) {
	for {
		lock, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
		if err != nil {
			return nil, err
		}
		if err := unix.Flock(int(lock.Fd()), unix.LOCK_EX|unix.LOCK_NB); err != nil {
			lock.Close()
			if errors.Is(err, unix.EWOULDBLOCK) {
				return nil, ErrBusy
			}
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		held, herr := lock.Stat()
		now, nerr := os.Stat(path)
		if herr == nil && nerr == nil && os.SameFile(held, now) {
			return lock, nil
		}
		lock.Close()
		if herr != nil {
			return nil, herr
		}
	}
}

// dial reaches the project's approver, if one listens.
func dial(ctx context.Context, root string) (net.Conn, error) {
	path, err := Address(root)
	if err != nil {
		return nil, err
	}
	return dialAt(ctx, path)
}

// dialAt connects to the socket at path.
func dialAt(ctx context.Context, path string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "unix", path)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ECONNREFUSED) {
			return nil, ErrNoApprover
		}
		return nil, err
	}
	return c, nil
}

// peerIsUs checks that the process at the other end of c runs as this
// user.
func peerIsUs(c net.Conn) error {
	uc, ok := c.(*net.UnixConn)
	if !ok {
		return fmt.Errorf("not a Unix socket: %T", c)
	}
	raw, err := uc.SyscallConn()
	if err != nil {
		return err
	}
	var uid int
	var uerr error
	if err := raw.Control(func(fd uintptr) { uid, uerr = peerUID(int(fd)) }); err != nil {
		return err
	}
	if uerr != nil {
		return fmt.Errorf("reading the peer's user id: %w", uerr)
	}
	if uid != os.Getuid() {
		return fmt.Errorf("the peer runs as user %d, not as this user (%d)", uid, os.Getuid())
	}
	return nil
}
