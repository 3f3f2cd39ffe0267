package memory

import (
	"bytes"
	"errors"
	"fmt"
	"unsafe"

	"golang.org/x/sys/unix"
)

// watcher tells a Store which files of its folder changed since it last
// asked, from inotify, so that a search need not look at every file. It
// starts no goroutine: the events queue in the kernel and are read,
// without blocking, when the store lists its memories.
type watcher struct {
	fd int
}

const watchMask = unix.IN_CREATE | unix.IN_DELETE | unix.IN_MODIFY | unix.IN_CLOSE_WRITE | unix.IN_ATTRIB |
	unix.IN_MOVED_FROM | unix.IN_MOVED_TO | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_ONLYDIR

// lost are the events after which the watch no longer sees everything.
const lost = unix.IN_Q_OVERFLOW | unix.IN_IGNORED | unix.IN_DELETE_SELF | unix.IN_MOVE_SELF | unix.IN_UNMOUNT

func newWatcher(dir string) (*watcher, error) {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil, fmt.Errorf("inotify: %w", err)
	}
	if _, err := unix.InotifyAddWatch(fd, dir, watchMask); err != nil {
		unix.Close(fd)
		return nil, fmt.Errorf("inotify watch %s: %w", dir, err)
	}
	return &watcher{fd: fd}, nil
}

// changes reads the queued events: the names of the files that changed,
// or all when the watch lost track (the queue overflowed, the folder went).
func (w *watcher) changes() (names []string, all bool, err error) {
	var buf [16 << 10]byte
	for {
		n, err := unix.Read(w.fd, buf[:])
		if errors.Is(err, unix.EAGAIN) {
			return names, false, nil
		}
		if errors.Is(err, unix.EINTR) {
			continue
		}
		if err != nil {
			return nil, true, fmt.Errorf("inotify read: %w", err)
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			start := off + unix.SizeofInotifyEvent
			end := start + int(ev.Len)
			if end > n {
				return nil, true, nil
			}
			if ev.Mask&lost != 0 {
				return nil, true, nil
			}
			if name := string(bytes.TrimRight(buf[start:end], "\x00")); name != "" {
				names = append(names, name)
			}
			off = end
		}
	}
}

func (w *watcher) close() { unix.Close(w.fd) }
