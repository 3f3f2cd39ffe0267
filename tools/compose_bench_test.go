package tools

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
)

// BenchmarkComposeTenReads is one program reading ten 4 KB files with
// Promise.all, through the registry in-process: the program's own cost
// beside the reads (compare BenchmarkTenReads).
func BenchmarkComposeTenReads(b *testing.B) {
	h := newHarness(&testing.T{})
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("f%d.txt", i))
		h.write(names[i], strings.Repeat(strings.Repeat("x", 63)+"\n", 64))
	}
	list, _ := json.Marshal(names)
	i := 0
	for b.Loop() {
		i++
		code := fmt.Sprintf(`const rs = await Promise.all(%s.map(p => tools.tether.read_file({path: p}))); return [%d, rs.length]`, list, i)
		if r := h.call("compose", map[string]any{"code": code}); r.IsError {
			b.Fatal(r.Content)
		}
	}
}

// BenchmarkTenReads is the same ten reads as direct calls.
func BenchmarkTenReads(b *testing.B) {
	h := newHarness(&testing.T{})
	var names []string
	for i := range 10 {
		names = append(names, fmt.Sprintf("f%d.txt", i))
		h.write(names[i], strings.Repeat(strings.Repeat("x", 63)+"\n", 64))
	}
	for b.Loop() {
		for _, n := range names {
			if r := h.call("read_file", map[string]any{"path": n}); r.IsError {
				b.Fatal(r.Content)
			}
		}
	}
}
