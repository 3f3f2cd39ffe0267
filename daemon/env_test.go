package daemon_test

import (
	"os"
	"testing"

	"go.lsp.dev/uri"

	"github.com/tether-dev/tether/daemon"
	"github.com/tether-dev/tether/internal/tool/tooltest"
	"github.com/tether-dev/tether/protocol"
)

// The daemon makes its environment from initialize's settings as tether
// call and tether mcp make theirs from the same settings (their tests
// check the same), and an editor's: diagnostics, unsaved files, results.
func TestInitializeMakesTheEnvEveryFrontEndMakes(t *testing.T) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	set := tooltest.EverySetting(exe)
	env, release, err := daemon.EnvFor(protocol.InitializeParams{
		WorkspaceFolders: []protocol.WorkspaceFolder{{URI: uri.File(t.TempDir()), Name: "ws"}},
		Settings:         &set,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer release()
	tooltest.CheckEnv(t, env, set)
	if env.Diagnostics == nil || env.Dirty == nil || env.Results == nil || env.Jobs == nil {
		t.Errorf("the editor's environment lacks its diagnostics, unsaved files, results or jobs: %+v", env)
	}
}
