package sandbox

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Wrap rewrites cmd to run under sandbox-exec with the spec's Seatbelt
// profile (see SeatbeltProfile), TMPDIR pointing to a private folder.
// At LevelNone it changes nothing and returns nil.
func (s Spec) Wrap(cmd *exec.Cmd, overlays ...Folder) (*Launch, error) {
	if !s.Level.Confined() {
		return nil, nil
	}
	if len(overlays) > 0 {
		return nil, fmt.Errorf("%w: macOS has no overlay", ErrSetup)
	}
	if s.Level != LevelSeatbelt {
		return nil, fmt.Errorf("%w: macOS has only the seatbelt level, not %s", ErrSetup, s.Level)
	}
	dir, err := makeTempDir()
	if err != nil {
		return nil, fmt.Errorf("%w: making its temporary folder: %v", ErrSetup, err)
	}
	l := &Launch{level: LevelSeatbelt, tempDir: dir, guard: guardGit(s.Folders)}
	if real, err := filepath.EvalSymlinks(dir); err == nil {
		dir = real // /var is /private/var: Seatbelt matches real paths
	}
	s.TempDir = dir
	p := SeatbeltProfile(s)
	args := []string{"sandbox-exec", "-p", p.Text}
	for _, kv := range p.Params {
		args = append(args, "-D", kv)
	}
	args = append(append(args, "--", cmd.Path), cmd.Args[1:]...)
	cmd.Path, cmd.Args, cmd.Err = SeatbeltExec, args, nil
	env := cmd.Env
	if env == nil {
		env = os.Environ()
	}
	out := make([]string, 0, len(env)+1)
	for _, kv := range env {
		if !strings.HasPrefix(kv, "TMPDIR=") {
			out = append(out, kv)
		}
	}
	cmd.Env = append(out, "TMPDIR="+dir+"/")
	return l, nil
}

// Probe checks that sandbox-exec runs: it is deprecated in its manual,
// and a future macOS may remove it.
func Probe(ctx context.Context, _ string) Status {
	cmd := exec.CommandContext(ctx, SeatbeltExec, "-p", "(version 1)(allow default)", "/usr/bin/true")
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		return Status{Level: LevelNone, Why: fmt.Sprintf("%s does not run (%v): %s", SeatbeltExec, err, strings.TrimSpace(out.String()))}
	}
	return Status{Level: LevelSeatbelt}
}

// Prepare starts no sandbox ahead of its command here: sandbox-exec
// takes the profile and the command together.
func (s Spec) Prepare(*exec.Cmd) (*Launch, error) {
	return nil, fmt.Errorf("%w: no sandbox is started ahead of its command on this system", ErrSetup)
}
