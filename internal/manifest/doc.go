// Package manifest generates what is made from the Go code, so that the
// two cannot drift apart: the languageModelTools section of the root
// package.json from the tool registry; and from the protocol's table of
// methods (protocol.Methods), the types they carry (by reflection, LSP's
// included) and their sources' doc comments, extension/src/protocol.ts
// (a vscode-jsonrpc RequestType or NotificationType per method) and
// docs/protocol.md.
//
// Run `npm run generate` (or `go generate ./internal/manifest`) after changing a
// tool or the protocol; a test fails until the files are regenerated.
package manifest

//go:generate go run ./cmd/gen
