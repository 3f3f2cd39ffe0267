// Package diff renders unified diffs of file changes.
//
// PLACEHOLDER: a naive line diff so the tools compile; replaced by the
// bounded, deterministic implementation.
package diff

import (
	"fmt"
	"strings"
)

// Unified returns a unified diff from a (named oldName) to b (named newName).
// Empty when a and b are equal.
func Unified(oldName, newName string, a, b []byte) string {
	if string(a) == string(b) {
		return ""
	}
	var sb strings.Builder
	fmt.Fprintf(&sb, "--- %s\n+++ %s\n", oldName, newName)
	for _, l := range strings.SplitAfter(string(a), "\n") {
		if l != "" {
			sb.WriteString("-" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	for _, l := range strings.SplitAfter(string(b), "\n") {
		if l != "" {
			sb.WriteString("+" + strings.TrimSuffix(l, "\n") + "\n")
		}
	}
	return sb.String()
}
