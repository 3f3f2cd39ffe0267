package tool

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// DefaultTokenBudget is the output budget when neither the call nor the
// settings name one: about 80 KB of text, with a write cap of 40,000
// characters.
const DefaultTokenBudget = 20000

// charsPerToken is the rough size of a token in source text. The budget is
// a cap, not an invoice, so a rough figure is enough.
const charsPerToken = 4

// minOutputChars keeps a tiny budget from making every tool useless.
const minOutputChars = 2000

// Budget is how much one tool result may take of the model's context.
type Budget struct{ Tokens int }

// NewBudget picks the call's budget, else the default.
func NewBudget(call, fallback int) Budget {
	switch {
	case call > 0:
		return Budget{call}
	case fallback > 0:
		return Budget{fallback}
	}
	return Budget{DefaultTokenBudget}
}

// OutputChars is the most text (in bytes) one result may carry.
func (b Budget) OutputChars() int {
	n := b.Tokens * charsPerToken
	if n < minOutputChars {
		n = minOutputChars
	}
	return n
}

// WriteChars caps one write: half the output budget, so that a model
// emitting a file still has room to think and is never cut off mid-file.
func (b Budget) WriteChars() int { return b.OutputChars() / 2 }

// CapHeadTail keeps the start and the end of s when it is longer than max
// bytes, cutting on line boundaries where it can, with a marker saying how
// much was left out. Use it where the end matters (a failing command's last
// error).
func CapHeadTail(s string, max int) string {
	if len(s) <= max {
		return s
	}
	marker := "\n… [%d lines, %d bytes omitted] …\n"
	keep := max - len(marker) - 24
	if keep < 2 {
		keep = 2
	}
	head := CutUTF8(s[:keep/2])
	if i := strings.LastIndexByte(head, '\n'); i > len(head)/2 {
		head = head[:i+1]
	}
	tailStart := len(s) - keep/2
	for tailStart < len(s) && !utf8.RuneStart(s[tailStart]) {
		tailStart++
	}
	tail := s[tailStart:]
	if i := strings.IndexByte(tail, '\n'); i >= 0 && i < len(tail)/2 {
		tail = tail[i+1:]
	}
	omitted := s[len(head) : len(s)-len(tail)]
	return head + fmt.Sprintf(marker, strings.Count(omitted, "\n"), len(omitted)) + tail
}

// CapHead keeps the start of s up to max bytes, on a line boundary, and
// says what was left out and how to get it.
func CapHead(s string, max int, hint string) string {
	if len(s) <= max {
		return s
	}
	note := fmt.Sprintf("\n… [output truncated at %d of %d bytes] %s", max, len(s), hint)
	keep := max - len(note)
	if keep < 0 {
		keep = 0
	}
	head := CutUTF8(s[:keep])
	if i := strings.LastIndexByte(head, '\n'); i > 0 {
		head = head[:i+1]
	}
	return head + strings.TrimPrefix(note, "\n")
}

// CutUTF8 drops a trailing partial rune, so a cut string stays valid UTF-8.
func CutUTF8(s string) string {
	for i := len(s) - 1; i >= 0 && i >= len(s)-utf8.UTFMax; i-- {
		if utf8.RuneStart(s[i]) {
			if !utf8.FullRuneInString(s[i:]) {
				return s[:i]
			}
			break
		}
	}
	return s
}
