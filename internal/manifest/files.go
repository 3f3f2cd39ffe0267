package manifest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/internal/diff"
	"github.com/tether-dev/tether/protocol"
)

// Paths of the generated files, relative to the repository root.
const (
	PackageJSONPath = "package.json"
	ProtocolTSPath  = "extension/src/protocol.ts"
	ProtocolMDPath  = "docs/protocol.md"
	protocolDir     = "protocol"
)

// generatedPaths lists the generated files, in the order they are written.
var generatedPaths = []string{PackageJSONPath, ProtocolTSPath, ProtocolMDPath}

// FindRoot walks up from dir to the folder holding go.mod.
func FindRoot(dir string) (string, error) {
	dir, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("no go.mod found in this folder or any parent")
		}
		dir = parent
	}
}

// Generated returns the content each generated file should have, keyed by
// its path relative to root: package.json's tool list from infos (the tool
// registry, with default settings), and protocol.ts and protocol.md from
// the protocol's table of methods and the sources of its types.
func Generated(root string, infos []protocol.ToolInfo) (map[string][]byte, error) {
	pkg, err := os.ReadFile(filepath.Join(root, PackageJSONPath))
	if err != nil {
		return nil, err
	}
	newPkg, err := RewritePackageJSON(pkg, append(LanguageModelTools(infos), ClientTools()...))
	if err != nil {
		return nil, err
	}
	m, err := loadModel(root)
	if err != nil {
		return nil, err
	}
	md, err := ProtocolMD(m)
	if err != nil {
		return nil, err
	}
	return map[string][]byte{PackageJSONPath: newPkg, ProtocolTSPath: ProtocolTS(m), ProtocolMDPath: md}, nil
}

// Write regenerates the files under root, touching only those that change.
func Write(root string, infos []protocol.ToolInfo) (changed []string, err error) {
	files, err := Generated(root, infos)
	if err != nil {
		return nil, err
	}
	return writeChanged(root, generatedPaths, files)
}

// writeChanged writes each of paths (relative to root) from files,
// touching only those whose content differs, and lists them.
func writeChanged(root string, paths []string, files map[string][]byte) (changed []string, err error) {
	for _, rel := range paths {
		path := filepath.Join(root, rel)
		if old, _ := os.ReadFile(path); bytes.Equal(old, files[rel]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return changed, err
		}
		if err := os.WriteFile(path, files[rel], 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, rel)
	}
	return changed, nil
}

// Stale is a generated file that differs from what its sources generate.
type Stale struct {
	Path string
	// Diff is the unified diff from the file as it is to what it should be.
	Diff string
}

func (s Stale) String() string {
	return fmt.Sprintf("%s is stale; the change that regenerating it makes:\n%s", s.Path, s.Diff)
}

// Drift lists the generated files under root that differ from what the
// registry and the protocol generate, each with the diff; empty means they
// are in step. package.json is compared on its languageModelTools only, so
// formatting elsewhere in the file is never reported.
func Drift(root string, infos []protocol.ToolInfo) ([]Stale, error) {
	files, err := Generated(root, infos)
	if err != nil {
		return nil, err
	}
	var drift []Stale
	for _, rel := range generatedPaths {
		have, err := os.ReadFile(filepath.Join(root, rel))
		if err != nil && !errors.Is(err, os.ErrNotExist) {
			return nil, err
		}
		want := files[rel]
		name := rel
		if rel == PackageJSONPath {
			name = rel + " (contributes.languageModelTools)"
			if have, err = packageTools(have); err != nil {
				return nil, err
			}
			if want, err = packageTools(want); err != nil {
				return nil, err
			}
		}
		if d := diff.Unified("a/"+name, "b/"+name, have, want); d != "" {
			drift = append(drift, Stale{Path: rel, Diff: d})
		}
	}
	return drift, nil
}

// packageTools is package.json's languageModelTools, indented the same
// way whatever the file's formatting, so that a diff of two shows only
// what differs.
func packageTools(pkg []byte) ([]byte, error) {
	tools, err := packageToolsRaw(pkg)
	if err != nil {
		return nil, err
	}
	var b bytes.Buffer
	if err := json.Indent(&b, tools, "", "  "); err != nil {
		return nil, err
	}
	b.WriteByte('\n')
	return b.Bytes(), nil
}
