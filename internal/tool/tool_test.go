package tool

import (
	"path/filepath"
	"testing"

	"github.com/tether-dev/tether/internal/stores"
	"github.com/tether-dev/tether/internal/workspace"
)

func TestAttachLendsTheStores(t *testing.T) {
	home := t.TempDir()
	for _, v := range []string{"XDG_STATE_HOME", "XDG_CONFIG_HOME", "XDG_DATA_HOME"} {
		t.Setenv(v, filepath.Join(home, v))
	}
	root := t.TempDir()
	st, err := stores.Open(root, stores.Options{Jobs: true})
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	ws, err := workspace.New(root)
	if err != nil {
		t.Fatal(err)
	}
	env := &Env{Workspace: ws}
	env.Attach(st)
	if env.Checkpoints == nil || env.Rules == nil || env.Staging == nil || env.Jobs == nil {
		t.Fatalf("not attached: %+v", env)
	}
}
