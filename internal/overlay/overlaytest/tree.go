package overlaytest

import (
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// Tree describes every path beneath root, root itself left out, without
// following links: "file <mode> <size> <sha256 prefix> <uid>:<gid>",
// "folder <mode>", "link <target>". Two trees that describe alike hold the
// same bytes, modes, owners, links and folders.
func Tree(t testing.TB, root string) map[string]string {
	t.Helper()
	out := map[string]string{}
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if p == root {
			return nil
		}
		rel, _ := filepath.Rel(root, p)
		fi, err := os.Lstat(p)
		if err != nil {
			return err
		}
		m := fi.Mode()
		switch {
		case m&fs.ModeSymlink != 0:
			target, err := os.Readlink(p)
			if err != nil {
				return err
			}
			out[filepath.ToSlash(rel)] = "link " + target
		case m.IsDir():
			out[filepath.ToSlash(rel)] = fmt.Sprintf("folder %04o", uint32(m.Perm()))
		case m.IsRegular():
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			owner := ownerOf(fi)
			out[filepath.ToSlash(rel)] = fmt.Sprintf("file %04o %d %x%s", uint32(m&fsatomic.KeptMode), len(data), sha256.Sum256(data), owner)
		default:
			out[filepath.ToSlash(rel)] = "special " + m.String()
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// DiffTrees lists how got differs from want, one line a path.
func DiffTrees(want, got map[string]string) []string {
	var out []string
	for p, w := range want {
		if g, ok := got[p]; !ok {
			out = append(out, p+": missing (want "+w+")")
		} else if g != w {
			out = append(out, p+": "+g+", want "+w)
		}
	}
	for p, g := range got {
		if _, ok := want[p]; !ok {
			out = append(out, p+": unexpected "+g)
		}
	}
	sort.Strings(out)
	return out
}
