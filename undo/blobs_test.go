package undo

import (
	"os"
	"strings"
	"testing"
)

// The first blob of a store makes all 256 folders blobs spread over, so no
// later blob pays a second flush for a folder of its own; each blob reads
// back as it was put.
func TestBlobFanOut(t *testing.T) {
	b := blobStore{dir: t.TempDir()}
	shas := map[string]string{}
	for _, content := range []string{"first", "second", "third"} {
		sha, size, err := b.put(strings.NewReader(content))
		if err != nil || size != int64(len(content)) {
			t.Fatalf("put %q: %v, size %d", content, err, size)
		}
		shas[sha] = content
		entries, err := os.ReadDir(b.dir)
		if err != nil {
			t.Fatal(err)
		}
		if len(entries) != 256 {
			t.Fatalf("%d entries in the blob folder after a put, want the 256 folders", len(entries))
		}
	}
	for sha, content := range shas {
		got, err := b.read(sha)
		if err != nil || string(got) != content {
			t.Fatalf("read %s: %q, %v; want %q", sha[:8], got, err, content)
		}
	}
}
