package undo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// A checkpoint's journal is a file of lines, appended to and never
// rewritten. Each line is "<crc32c hex> <json record>\n". A line only counts
// when it ends in a newline and its checksum holds: a crash mid-append leaves
// at most one torn line at the end, which readers skip and the next writer
// cuts off before appending.

// Record kinds, in the order they appear in a journal.
const (
	kindBegin   = "begin"   // first line: the checkpoint's identity
	kindSave    = "save"    // a path's state before the request changed it
	kindAgain   = "again"   // the request is about to change a saved path again
	kindWrote   = "wrote"   // what Tether left at a path afterwards
	kindKept    = "kept"    // content undo replaced without knowing whose it was
	kindDropped = "dropped" // the change a save was for did not happen
	kindUndone  = "undone"  // the checkpoint was undone; it is frozen from here
)

// record is one journal line.
type record struct {
	Kind      string     `json:"kind"`
	ID        string     `json:"id,omitempty"`
	Request   string     `json:"request,omitempty"`
	Time      time.Time  `json:"time,omitzero"`
	Path      string     `json:"path,omitempty"`
	State     *fileState `json:"state,omitempty"`
	Restored  []string   `json:"restored,omitempty"`
	Conflicts []Conflict `json:"conflicts,omitempty"`
	Replaced  []string   `json:"replaced,omitempty"`
}

var castagnoli = crc32.MakeTable(crc32.Castagnoli)

// encodeRecords renders records as journal lines.
func encodeRecords(recs ...record) ([]byte, error) {
	var buf bytes.Buffer
	for _, r := range recs {
		js, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%08x %s\n", crc32.Checksum(js, castagnoli), js)
	}
	return buf.Bytes(), nil
}

// decodeLine parses one line (without its newline); ok is false for a line
// that is torn or damaged.
func decodeLine(line []byte) (rec record, ok bool) {
	sum, js, found := bytes.Cut(line, []byte(" "))
	if !found || len(sum) != 8 {
		return record{}, false
	}
	var want uint32
	if _, err := fmt.Sscanf(string(sum), "%08x", &want); err != nil {
		return record{}, false
	}
	if crc32.Checksum(js, castagnoli) != want {
		return record{}, false
	}
	if err := json.Unmarshal(js, &rec); err != nil {
		return record{}, false
	}
	return rec, true
}

// readJournal returns the good records of a journal, the length of the
// prefix that ends with the last good line (where the next append goes),
// and the file's size.
func readJournal(path string) (recs []record, goodLen, size int64, err error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, 0, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var off int64
	for {
		line, err := br.ReadBytes('\n')
		off += int64(len(line))
		if err == io.EOF {
			// A last line without its newline is torn: ignored.
			return recs, goodLen, off, nil
		}
		if err != nil {
			return nil, 0, 0, err
		}
		if rec, ok := decodeLine(line[:len(line)-1]); ok {
			recs = append(recs, rec)
			goodLen = off
		}
	}
}

// createJournal writes a new journal holding recs, durably: the file and
// its name are both on disk before it returns. It fails if path exists.
func createJournal(path string, recs ...record) (size int64, err error) {
	data, err := encodeRecords(recs...)
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return 0, err
	}
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(path)
		return 0, err
	}
	if err := fsatomic.SyncDir(dirOf(path)); err != nil {
		return 0, err
	}
	return int64(len(data)), nil
}

// appendJournal adds recs after the first goodLen bytes of the journal,
// cutting off a torn tail first, and syncs when durable is set. It returns
// the new size.
func appendJournal(path string, goodLen, size int64, durable bool, recs ...record) (int64, error) {
	data, err := encodeRecords(recs...)
	if err != nil {
		return 0, err
	}
	f, err := os.OpenFile(path, os.O_WRONLY, 0)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	if size != goodLen {
		// Without this the new line would be glued to the torn one and
		// both would be lost.
		if err := f.Truncate(goodLen); err != nil {
			return 0, err
		}
	}
	if _, err := f.WriteAt(data, goodLen); err != nil {
		return 0, err
	}
	if durable {
		if err := f.Sync(); err != nil {
			return 0, err
		}
	}
	return goodLen + int64(len(data)), nil
}
