// Package manifest generates the VS Code extension's view of the Go code,
// so that the two cannot drift apart: the languageModelTools section of the
// root package.json from the tool registry, and extension/src/protocol.ts
// from the protocol package's types and constants.
//
// Run `npm run generate` (or `go generate ./internal/manifest`) after changing a
// tool or the protocol; a test fails until the files are regenerated.
package manifest

//go:generate go run ./cmd/gen
