package fsatomic

import (
	"io"
	"io/fs"
	"os"
)

// OpenRegular opens path for reading and returns it with what it is, but
// only when it is a regular file; anything else (a folder, a named pipe, a
// device) fails with ErrNotRegular. The open itself never blocks: a named
// pipe with no writer, which a plain open would wait on forever, is opened
// without waiting and then refused.
func OpenRegular(path string) (*os.File, fs.FileInfo, error) {
	f, err := os.OpenFile(path, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, path)
}

// OpenRegularIn is OpenRegular for name beneath root.
func OpenRegularIn(root *os.Root, name string) (*os.File, fs.FileInfo, error) {
	f, err := root.OpenFile(name, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	return checkRegular(f, name)
}

func checkRegular(f *os.File, name string) (*os.File, fs.FileInfo, error) {
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	if !fi.Mode().IsRegular() {
		f.Close()
		return nil, nil, notRegular("open", name, fi.Mode())
	}
	return f, fi, nil
}

// ReadFileIn reads the regular file name beneath root, at most limit bytes
// of it (limit < 0: all), and returns what it read with the FileInfo of the
// file it read.
func ReadFileIn(root *os.Root, name string, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := OpenRegularIn(root, name)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	var r io.Reader = f
	if limit >= 0 {
		r = io.LimitReader(f, limit)
	}
	hint := fi.Size()
	if limit >= 0 {
		hint = min(hint, limit)
	}
	data := make([]byte, 0, hint+1)
	for {
		if len(data) == cap(data) {
			data = append(data, 0)[:len(data)]
		}
		n, err := r.Read(data[len(data):cap(data)])
		data = data[:len(data)+n]
		if err == io.EOF {
			return data, fi, nil
		}
		if err != nil {
			return nil, nil, err
		}
	}
}
