package undo

import (
	"crypto/sha256"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// blobStore keeps file contents by their SHA-256, each content once, under
// <dir>/<first two hex digits>/<hash>. A blob appears under its name only
// complete and synced, so a crash leaves at worst a stray temporary file,
// which garbage collection removes.
type blobStore struct{ dir string }

const blobTempPrefix = ".tmp-"

func (b blobStore) path(sha string) string {
	return filepath.Join(b.dir, sha[:2], sha)
}

// put copies r into the store and returns its hash and size. Content that
// is already there is not written again.
func (b blobStore) put(r io.Reader) (sha string, size int64, err error) {
	tmp, err := os.CreateTemp(b.dir, blobTempPrefix+"*")
	if err != nil {
		return "", 0, err
	}
	defer func() {
		if tmp != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	h := sha256.New()
	size, err = io.Copy(io.MultiWriter(tmp, h), r)
	if err != nil {
		return "", 0, err
	}
	sha = hexSum(h)
	final := b.path(sha)
	if fi, err := os.Stat(final); err == nil && fi.Size() == size {
		return sha, size, nil
	}
	// Sync only content that is new: an identical blob costs a read, not a flush.
	if err := tmp.Sync(); err != nil {
		return "", 0, err
	}
	if err := tmp.Close(); err != nil {
		return "", 0, err
	}
	sub := filepath.Dir(final)
	if _, err := os.Stat(sub); errors.Is(err, fs.ErrNotExist) {
		if err := b.fanOut(); err != nil {
			return "", 0, err
		}
	}
	if err := os.Rename(tmp.Name(), final); err != nil {
		return "", 0, err
	}
	tmp = nil
	// One flush for the name; the content was flushed before the rename.
	if err := fsatomic.SyncDir(sub); err != nil {
		return "", 0, err
	}
	return sha, size, nil
}

// fanOut makes every one of the 256 folders blobs are spread over, and
// syncs their parent once: otherwise each of the first few hundred blobs
// of a store would make its folder and pay a second flush for it.
func (b blobStore) fanOut() error {
	for i := range 256 {
		sub := filepath.Join(b.dir, fmt.Sprintf("%02x", i))
		if err := os.Mkdir(sub, 0o700); err != nil && !errors.Is(err, fs.ErrExist) {
			return err
		}
	}
	return fsatomic.SyncDir(b.dir)
}

// open returns a blob for reading, checked against its name as it is read.
func (b blobStore) open(sha string) (io.ReadCloser, error) {
	if !validSHA(sha) {
		return nil, fmt.Errorf("bad content hash %q in the journal", sha)
	}
	f, err := os.Open(b.path(sha))
	if err != nil {
		return nil, err
	}
	return &verifyingReader{f: f, h: sha256.New(), want: sha}, nil
}

// read returns a whole blob, verified.
func (b blobStore) read(sha string) ([]byte, error) {
	r, err := b.open(sha)
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// sweep removes every blob not in keep, and stray temporary files.
func (b blobStore) sweep(keep map[string]bool) error {
	subs, err := os.ReadDir(b.dir)
	if err != nil {
		return err
	}
	var errs []error
	for _, sub := range subs {
		name := sub.Name()
		if strings.HasPrefix(name, blobTempPrefix) {
			errs = append(errs, removeIfExists(filepath.Join(b.dir, name)))
			continue
		}
		if !sub.IsDir() {
			continue
		}
		files, err := os.ReadDir(filepath.Join(b.dir, name))
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, f := range files {
			if !keep[f.Name()] {
				errs = append(errs, removeIfExists(filepath.Join(b.dir, name, f.Name())))
			}
		}
	}
	return errors.Join(errs...)
}

func removeIfExists(path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

func validSHA(s string) bool {
	if len(s) != sha256.Size*2 {
		return false
	}
	for _, c := range s {
		if !('0' <= c && c <= '9' || 'a' <= c && c <= 'f') {
			return false
		}
	}
	return true
}

// verifyingReader fails at the end of a blob whose content no longer
// matches its hash, so undo never writes back damaged bytes.
type verifyingReader struct {
	f    *os.File
	h    hash.Hash
	want string
}

func (v *verifyingReader) Read(p []byte) (int, error) {
	n, err := v.f.Read(p)
	v.h.Write(p[:n])
	if err == io.EOF {
		if got := hexSum(v.h); got != v.want {
			return n, fmt.Errorf("saved content %s is damaged (its hash is now %s)", v.want[:12], got[:12])
		}
	}
	return n, err
}

func (v *verifyingReader) Close() error { return v.f.Close() }
