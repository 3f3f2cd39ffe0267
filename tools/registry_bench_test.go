package tools

import (
	"testing"

	"github.com/tether-dev/tether/internal/tool"
)

// BenchmarkToolList is what initialize and tools/list pay for the tool
// list once the schemas exist (they are built once per process, in the
// first round): every tool's description for the settings, from the
// table built with the program (descriptions_gen.go) where it has it.
func BenchmarkToolList(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if infos := Builtin().Infos(&tool.Settings{}); len(infos) == 0 {
			b.Fatal("no tools")
		}
	}
}
