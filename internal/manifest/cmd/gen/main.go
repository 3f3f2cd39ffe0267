// Command gen rewrites the languageModelTools section of the root
// package.json from the tool registry and extension/src/protocol.ts from the
// protocol package. `npm run generate` runs it from the repository root;
// `go generate ./internal/manifest` runs it from internal/manifest/. Either way it finds the
// root by looking for go.mod.
package main

import (
	"fmt"
	"os"

	"github.com/tether-dev/tether/internal/manifest"
	"github.com/tether-dev/tether/tools"
)

func main() {
	root, err := manifest.FindRoot(".")
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	changed, err := manifest.Write(root, tools.Builtin().Infos(nil))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	if len(changed) == 0 {
		fmt.Println("generated files are up to date")
		return
	}
	for _, c := range changed {
		fmt.Println("wrote", c)
	}
}
