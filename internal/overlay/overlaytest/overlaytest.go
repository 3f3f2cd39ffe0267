// Package overlaytest runs shell commands over real overlays, the way the
// sandbox mounts them (each workspace folder seen through an overlay at its
// own path, upper and work directory from an overlay.Set), in a user and
// mount namespace of their own: nothing mounted is seen outside, and only
// the upper directories receive what the commands write.
package overlaytest

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/overlay"
)

// Run runs script with sh in the first layer's folder, every layer of set
// mounted over its folder, and fails t if it fails. It skips t where this
// system cannot mount an overlay as a user (see Available).
func Run(t testing.TB, set *overlay.Set, script string) {
	t.Helper()
	if why := Available(); why != "" {
		t.Skip(why)
	}
	if out, err := run(set.Layers, script); err != nil {
		t.Fatalf("the command over the overlay failed: %v\n%s", err, out)
	}
}

var probe struct {
	once sync.Once
	why  string
}

// Available says why overlays cannot be mounted here ("" when they can):
// it mounts one in a scratch folder once, the way Run does.
func Available() string {
	probe.once.Do(func() {
		dir, err := os.MkdirTemp("", "overlaytest-probe-")
		if err != nil {
			probe.why = err.Error()
			return
		}
		defer os.RemoveAll(dir)
		l := overlay.Layer{Folder: dir + "/lower", Upper: dir + "/upper", Work: dir + "/work"}
		for _, d := range []string{l.Folder, l.Upper, l.Work} {
			if err := os.Mkdir(d, 0o700); err != nil {
				probe.why = err.Error()
				return
			}
		}
		if out, err := run([]overlay.Layer{l}, "echo probe > probe"); err != nil {
			probe.why = fmt.Sprintf("an overlay cannot be mounted in a user namespace here (%v: %s)", err, bytes.TrimSpace(out))
			return
		}
		if _, err := os.Stat(l.Upper + "/probe"); err != nil {
			probe.why = "an overlay was mounted but its upper layer got nothing: " + err.Error()
		}
	})
	return probe.why
}

func run(layers []overlay.Layer, script string) ([]byte, error) {
	if _, err := exec.LookPath("mount"); err != nil {
		return nil, fmt.Errorf("no mount program: %w", err)
	}
	var b strings.Builder
	b.WriteString("set -e\n")
	for _, l := range layers {
		for _, p := range []string{l.Folder, l.Upper, l.Work} {
			if strings.ContainsAny(p, ",:'\\\n") {
				return nil, fmt.Errorf("overlaytest: %q holds a character mount options cannot carry", p)
			}
		}
		fmt.Fprintf(&b, "mount -t overlay overlay -o 'lowerdir=%s,upperdir=%s,workdir=%s,userxattr' '%s'\n", l.Folder, l.Upper, l.Work, l.Folder)
	}
	fmt.Fprintf(&b, "cd '%s'\n", layers[0].Folder)
	b.WriteString(script)
	b.WriteString("\n")
	cmd := exec.Command("/bin/sh", "-c", b.String())
	cmd.SysProcAttr = sysProcAttr()
	return cmd.CombinedOutput()
}
