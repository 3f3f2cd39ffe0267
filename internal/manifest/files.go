package manifest

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/tether-dev/tether/protocol"
)

// Paths of the generated files, relative to the repository root.
const (
	PackageJSONPath = "package.json"
	ProtocolTSPath  = "extension/src/protocol.ts"
	protocolDir     = "protocol"
)

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
// registry, with default settings) and protocol.ts from the protocol
// package's sources.
func Generated(root string, infos []protocol.ToolInfo) (map[string][]byte, error) {
	pkg, err := os.ReadFile(filepath.Join(root, PackageJSONPath))
	if err != nil {
		return nil, err
	}
	newPkg, err := RewritePackageJSON(pkg, append(LanguageModelTools(infos), ClientTools()...))
	if err != nil {
		return nil, err
	}
	ts, err := ProtocolTS(filepath.Join(root, protocolDir))
	if err != nil {
		return nil, err
	}
	return map[string][]byte{PackageJSONPath: newPkg, ProtocolTSPath: ts}, nil
}

// Write regenerates the files under root, touching only those that change.
func Write(root string, infos []protocol.ToolInfo) (changed []string, err error) {
	files, err := Generated(root, infos)
	if err != nil {
		return nil, err
	}
	for _, rel := range []string{PackageJSONPath, ProtocolTSPath} {
		path := filepath.Join(root, rel)
		old, _ := os.ReadFile(path)
		if bytes.Equal(old, files[rel]) {
			continue
		}
		if err := os.WriteFile(path, files[rel], 0o644); err != nil {
			return changed, err
		}
		changed = append(changed, rel)
	}
	return changed, nil
}

// Drift lists how the files under root differ from what the registry and
// the protocol generate; empty means they are in step. package.json is
// compared on its languageModelTools only, so formatting elsewhere in the
// file is never reported.
func Drift(root string, infos []protocol.ToolInfo) ([]string, error) {
	files, err := Generated(root, infos)
	if err != nil {
		return nil, err
	}
	var drift []string
	pkg, err := os.ReadFile(filepath.Join(root, PackageJSONPath))
	if err != nil {
		return nil, err
	}
	have, err := packageTools(pkg)
	if err != nil {
		return nil, err
	}
	want, err := packageTools(files[PackageJSONPath])
	if err != nil {
		return nil, err
	}
	if !bytes.Equal(have, want) {
		drift = append(drift, fmt.Sprintf("%s: contributes.languageModelTools differs from the tool registry", PackageJSONPath))
	}
	ts, err := os.ReadFile(filepath.Join(root, ProtocolTSPath))
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	if !bytes.Equal(ts, files[ProtocolTSPath]) {
		drift = append(drift, fmt.Sprintf("%s differs from what protocol/ generates", ProtocolTSPath))
	}
	return drift, nil
}
