// Package overlay keeps the layers a sandboxed command writes into and
// reads back what it wrote.
//
// Inside the sandbox each workspace folder is seen through an overlay
// file system: the real folder is the lower layer, read-only to the
// command, and every change lands in an upper directory of Tether's. This
// package only deals with those directories outside the sandbox: Allocate
// makes a Set of them (on the folder's own file system where it can, so
// that taking a file in is a rename), Read turns an upper directory into a
// list of Changes once the command and everything it started are gone, and
// Sweep removes the sets a killed Tether left behind.
//
// How an upper directory describes changes (kernel overlayfs mounted with
// userxattr, without redirect_dir, metacopy or index):
//   - a character device 0/0 is a whiteout: the path was removed;
//   - a directory with the xattr user.overlay.opaque = "y" hides whatever the
//     lower layer has beneath it: the lower folder was removed and made anew;
//   - any other entry holds the path's whole new state, but the kernel copies
//     a file up on any change of its metadata, and on an open for writing,
//     so an entry may equal the lower file: Read drops those;
//   - a hard link made by the command is two names of one inode.
package overlay
