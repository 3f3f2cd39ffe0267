package undo

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"hash/crc32"
	"io"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
)

// A checkpoint's journal is a file of lines, appended to and never
// rewritten. Each line is "<crc32c hex> <json record>\n". A line only counts
// when it ends in a newline and its checksum holds: a crash mid-append leaves
// at most one torn line at the end, which readers skip and the next writer
// cuts off before appending. Any other bad line is damage (a flipped bit, a
// file cut short): the checkpoint is then reported as damaged, with what it
// can still put back and what it cannot, and is never written to again.

// Record kinds, in the order they appear in a journal.
const (
	kindBegin   = "begin"   // first line: the checkpoint's identity
	kindSave    = "save"    // a path's state before the request changed it
	kindAgain   = "again"   // the request is about to change a saved path again
	kindWrote   = "wrote"   // what Tether left at a path afterwards
	kindKept    = "kept"    // content undo replaced without knowing whose it was
	kindDropped = "dropped" // the change a save was for did not happen
	kindUndone  = "undone"  // the checkpoint was undone; it is frozen from here

	// A command's changes, taken in as a set (SaveSet).
	kindApplying = "applying" // a set of changes is being applied; written with their saves
	kindApplied  = "applied"  // the set was applied (or given up) to the end
	kindAside    = "aside"    // a command's version of a path that was not applied, kept
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
	Damaged   string     `json:"damaged,omitempty"`
	// Reason says why an aside was not applied, or what an applying
	// record applies; Count is how many paths it applies.
	Reason string `json:"reason,omitempty"`
	Count  int    `json:"count,omitempty"`
	// Set marks a save made for a change set (SaveSet), whose path may
	// come to hold a link or a folder.
	Set bool `json:"set,omitempty"`
}

// castagnoli is made on first use: building its tables is a fifth of a
// millisecond that a start which never writes a journal should not pay.
var castagnoli = sync.OnceValue(func() *crc32.Table { return crc32.MakeTable(crc32.Castagnoli) })

// encodeRecords renders records as journal lines.
func encodeRecords(recs ...record) ([]byte, error) {
	var buf bytes.Buffer
	for _, r := range recs {
		js, err := json.Marshal(r)
		if err != nil {
			return nil, err
		}
		fmt.Fprintf(&buf, "%08x %s\n", crc32.Checksum(js, castagnoli()), js)
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
	want, err := strconv.ParseUint(string(sum), 16, 32)
	if err != nil || sum[0] == '+' || sum[0] == '-' {
		return record{}, false
	}
	if uint64(crc32.Checksum(js, castagnoli())) != want {
		return record{}, false
	}
	if err := json.Unmarshal(js, &rec); err != nil {
		return record{}, false
	}
	return rec, true
}

// scan is what reading a journal found.
type scan struct {
	recs []record
	// goodLen is where the next append goes: just past the last line that
	// ends in a newline, good or damaged. Only a torn tail is cut off.
	goodLen int64
	size    int64
	// lines counts the lines that end in a newline.
	lines int
	// damaged counts lines that ended in a newline but failed their
	// checksum or did not parse, and a last line that lost its newline to
	// damage (it checks out without its last byte); a crash only ever
	// leaves a torn last line, which is not damage.
	damaged int
	// damagedSaves are the paths named by damaged save records that still
	// read as JSON: changes undo cannot put back.
	damagedSaves []string
}

// readJournal reads a journal: its good records, where the next append
// goes, its size, and the damage found on the way.
func readJournal(path string) (scan, error) {
	f, err := os.Open(path)
	if err != nil {
		return scan{}, err
	}
	defer f.Close()
	br := bufio.NewReader(f)
	var sc scan
	var off int64
	for {
		line, err := br.ReadBytes('\n')
		off += int64(len(line))
		if err == io.EOF {
			// A last line without its newline is torn: ignored, unless it
			// is a whole record whose newline was damaged.
			if len(line) > 1 {
				if _, ok := decodeLine(line[:len(line)-1]); ok {
					sc.noteDamage(line[:len(line)-1])
				}
			}
			sc.size = off
			return sc, nil
		}
		if err != nil {
			return scan{}, err
		}
		sc.lines++
		sc.goodLen = off
		if rec, ok := decodeLine(line[:len(line)-1]); ok {
			sc.recs = append(sc.recs, rec)
		} else {
			sc.noteDamage(line[:len(line)-1])
		}
	}
}

// noteDamage counts a damaged line, and remembers the path of a save it
// can still make out (without trusting anything else in it).
func (sc *scan) noteDamage(line []byte) {
	sc.damaged++
	_, js, _ := bytes.Cut(line, []byte(" "))
	var rec record
	if json.Unmarshal(js, &rec) == nil && rec.Kind == kindSave && rec.Path != "" {
		sc.damagedSaves = append(sc.damagedSaves, rec.Path)
	}
}

// createJournal writes a new journal holding recs, durably and at once: the
// records go to a temporary file that is synced and then renamed to path,
// so a journal never exists without its first records, and one that lacks
// them later was damaged. It fails if path exists.
func createJournal(path string, recs ...record) (size int64, err error) {
	data, err := encodeRecords(recs...)
	if err != nil {
		return 0, err
	}
	dir := dirOf(path)
	f, err := os.CreateTemp(dir, journalTempPrefix+"*")
	if err != nil {
		return 0, err
	}
	tmp := f.Name()
	if _, err = f.Write(data); err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = fsatomic.RenameNoReplace(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return 0, err
	}
	return int64(len(data)), nil
}

// journalTempPrefix names a journal being created; one left by a crash is
// swept.
const journalTempPrefix = ".tmp-"

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
