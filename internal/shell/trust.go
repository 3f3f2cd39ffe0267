package shell

import (
	"encoding/json"
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/tether-dev/tether/internal/fsatomic"
	"github.com/tether-dev/tether/internal/project"
)

// A trusted project may run its own test suite without asking: test
// runners execute the repository's code (conftest.py, package.json
// scripts, Go test files), so running one is only as safe as the project.
// Trust is the user's decision (`tether trust`), stored outside the
// workspace so that a repository cannot grant it to itself.

type trustDoc struct {
	Trusted bool      `json:"trusted"`
	Since   time.Time `json:"since,omitempty"`
}

// TrustFile is where a project's trust is recorded:
// $XDG_CONFIG_HOME/tether/projects/<key>/trust.json.
func TrustFile(root string) string {
	return filepath.Join(project.ConfigDir(root), "trust.json")
}

// Trusted reports whether the user marked the project rooted at root as
// trusted. A missing or unreadable file means no.
func Trusted(root string) bool {
	data, err := os.ReadFile(TrustFile(root))
	if err != nil {
		return false
	}
	var doc trustDoc
	return json.Unmarshal(data, &doc) == nil && doc.Trusted
}

// SetTrusted records (or withdraws) the user's trust in a project.
func SetTrusted(root string, trusted bool) error {
	path := TrustFile(root)
	if !trusted {
		if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return err
		}
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	data, err := json.MarshalIndent(trustDoc{Trusted: true, Since: time.Now().UTC().Truncate(time.Second)}, "", "  ")
	if err != nil {
		return err
	}
	return fsatomic.WriteFile(path, append(data, '\n'), 0o600)
}
