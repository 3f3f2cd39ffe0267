package tooltest

import (
	"strconv"
	"strings"
)

// OverwritePayloads are two files of ordinary Go-like code of just over
// 1 MiB that differ in one line, for the benchmarks that overwrite a file
// with each in turn (daemon's and tools' BenchmarkOverwrite1MiB): every
// write changes the file, and its diff is one hunk.
func OverwritePayloads() [2]string {
	var payloads [2]string
	for k, mark := range [2]string{"// MARK one\n", "// MARK two\n"} {
		var s strings.Builder
		for i := 0; s.Len() < 1<<20; i++ {
			s.WriteString("func f" + strconv.Itoa(i) + "(x int) int { return x * 2 } // a line of ordinary code\n")
			if i == 5000 {
				s.WriteString(mark)
			}
		}
		payloads[k] = s.String()
	}
	return payloads
}
