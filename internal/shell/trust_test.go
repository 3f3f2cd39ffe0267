package shell

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestTrustIsSavedOutsideTheWorkspace(t *testing.T) {
	config := t.TempDir()
	t.Setenv("XDG_CONFIG_HOME", config)
	root := t.TempDir()
	if Trusted(root) {
		t.Fatal("a project is trusted before anyone said so")
	}
	if err := SetTrusted(root, true); err != nil {
		t.Fatal(err)
	}
	if !Trusted(root) {
		t.Fatal("SetTrusted(true) did not stick")
	}
	if !strings.HasPrefix(TrustFile(root), filepath.Join(config, "tether", "projects")+string(filepath.Separator)) {
		t.Errorf("TrustFile = %s, not under the XDG config folder", TrustFile(root))
	}
	if Trusted(t.TempDir()) {
		t.Errorf("trust leaked to another project")
	}
	if err := SetTrusted(root, false); err != nil || Trusted(root) {
		t.Errorf("SetTrusted(false) = %v, trusted %v", err, Trusted(root))
	}
}

func TestTrustFileThatSaysNoOrIsBroken(t *testing.T) {
	t.Setenv("XDG_CONFIG_HOME", t.TempDir())
	root := t.TempDir()
	for _, content := range []string{`{"trusted": false}`, `not json`, `{}`} {
		os.MkdirAll(filepath.Dir(TrustFile(root)), 0o700)
		os.WriteFile(TrustFile(root), []byte(content), 0o600)
		if Trusted(root) {
			t.Errorf("trust.json %q counts as trusted", content)
		}
	}
}
