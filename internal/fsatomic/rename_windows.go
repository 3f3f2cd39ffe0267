package fsatomic

import (
	"errors"
	"os"
	"unsafe"

	"golang.org/x/sys/windows"
)

// errSyncUnsupported never matches: folders are not synced on Windows.
var errSyncUnsupported = errors.New("folder sync is not supported")

// dirSyncWorks is false: Windows cannot open a folder for FlushFileBuffers
// (it answers "Access is denied"), and NTFS journals a rename's metadata
// itself, so a folder sync is a no-op here.
const dirSyncWorks = false

// renameNoReplace renames without replacing, relative to the folders'
// handles: the source, a single name, is opened beneath its folder for
// deletion (a reparse point itself, never followed) and renamed to the target name beneath the
// other folder with ReplaceIfExists false, which is what MoveFileEx
// without MOVEFILE_REPLACE_EXISTING does, but confined to the handles.
func renameNoReplace(from *os.File, fromBase string, to *os.File, toBase string) error {
	name, err := windows.NewNTUnicodeString(fromBase)
	if err != nil {
		return err
	}
	oa := windows.OBJECT_ATTRIBUTES{
		RootDirectory: windows.Handle(from.Fd()),
		ObjectName:    name,
		Attributes:    windows.OBJ_CASE_INSENSITIVE,
	}
	oa.Length = uint32(unsafe.Sizeof(oa))
	var h windows.Handle
	var iosb windows.IO_STATUS_BLOCK
	err = windows.NtCreateFile(&h, windows.DELETE|windows.SYNCHRONIZE, &oa, &iosb, nil, 0,
		windows.FILE_SHARE_READ|windows.FILE_SHARE_WRITE|windows.FILE_SHARE_DELETE,
		windows.FILE_OPEN, windows.FILE_OPEN_REPARSE_POINT|windows.FILE_OPEN_FOR_BACKUP_INTENT|windows.FILE_SYNCHRONOUS_IO_NONALERT|windows.FILE_NON_DIRECTORY_FILE, 0, 0)
	if err != nil {
		return ntError(err)
	}
	defer windows.CloseHandle(h)
	target, err := windows.UTF16FromString(toBase)
	if err != nil {
		return err
	}
	target = target[:len(target)-1] // no terminating NUL: the length says where it ends
	// FILE_RENAME_INFORMATION: ReplaceIfExists (a BOOLEAN, padded), the
	// root directory handle, the name's length in bytes, then the name.
	type renameInfo struct {
		ReplaceIfExists uint32
		RootDirectory   windows.Handle
		FileNameLength  uint32
		FileName        [1]uint16
	}
	size := int(unsafe.Offsetof(renameInfo{}.FileName)) + len(target)*2
	buf := make([]byte, size+2)
	ri := (*renameInfo)(unsafe.Pointer(&buf[0]))
	ri.ReplaceIfExists = 0
	ri.RootDirectory = windows.Handle(to.Fd())
	ri.FileNameLength = uint32(len(target) * 2)
	copy(unsafe.Slice(&ri.FileName[0], len(target)), target)
	err = windows.NtSetInformationFile(h, &iosb, &buf[0], uint32(size), windows.FileRenameInformation)
	if err != nil {
		return ntError(err)
	}
	return nil
}

// ntError turns an NTSTATUS into the Win32 error os and errors.Is know.
func ntError(err error) error {
	var st windows.NTStatus
	if errors.As(err, &st) {
		if st == windows.STATUS_OBJECT_NAME_COLLISION {
			return windows.ERROR_ALREADY_EXISTS
		}
		return st.Errno()
	}
	return err
}
