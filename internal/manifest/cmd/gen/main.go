// Command gen rewrites the languageModelTools section of the root
// package.json from the tool registry, extension/src/protocol.ts and
// docs/protocol.md from the protocol package, and the reference pages
// docs/tools.md and docs/settings.md from the registry and the settings,
// tools/schemas_gen.go, the tools' input schemas inferred beforehand, and
// tools/descriptions_gen.go, their descriptions rendered beforehand for
// the default settings.
// `npm run generate` runs it from the repository root;
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
	docs, err := manifest.WriteDocs(root, manifest.ToolDocs(tools.Builtin().Tools()))
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	changed = append(changed, docs...)
	schemas, err := manifest.WriteSchemas(root, tools.Builtin().Tools())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	changed = append(changed, schemas...)
	descriptions, err := manifest.WriteDescriptions(root, tools.Builtin().Tools())
	if err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
	changed = append(changed, descriptions...)
	if len(changed) == 0 {
		fmt.Println("generated files are up to date")
		return
	}
	for _, c := range changed {
		fmt.Println("wrote", c)
	}
}
