package shell

import (
	"regexp"
	"strings"
	"sync"
)

// ansiEscape matches terminal control sequences: colours and cursor moves
// (CSI), window titles and links (OSC), and two-byte escapes. They carry no
// meaning for a model and cost tokens. It is compiled on first use, not
// when every command of the binary starts.
var ansiEscape = sync.OnceValue(func() *regexp.Regexp {
	return regexp.MustCompile(`\x1b(?:\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(?:\x07|\x1b\\)|[@-Z\\-_])`)
})

// CleanOutput makes command output fit to show a model: terminal escapes
// removed, progress lines redrawn with '\r' reduced to what a terminal
// would finally show, and invalid UTF-8 replaced.
func CleanOutput(s string) string {
	if strings.IndexByte(s, 0x1b) >= 0 {
		s = ansiEscape().ReplaceAllString(s, "")
	}
	if strings.IndexByte(s, '\r') >= 0 {
		s = collapseCarriageReturns(s)
	}
	return strings.ToValidUTF8(s, "\uFFFD")
}

// collapseCarriageReturns keeps, of each line, the text after its last
// lone '\r' (a progress bar's last frame). A "\r\n" line ending is kept
// as a plain newline.
func collapseCarriageReturns(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	if strings.IndexByte(s, '\r') < 0 {
		return s
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if j := strings.LastIndexByte(strings.TrimRight(l, "\r"), '\r'); j >= 0 {
			lines[i] = l[j+1:]
		} else {
			lines[i] = strings.TrimRight(l, "\r")
		}
	}
	return strings.Join(lines, "\n")
}
