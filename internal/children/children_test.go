package children

import (
	"os/exec"
	"runtime"
	"testing"
)

func TestStartListsTheChildUntilDone(t *testing.T) {
	if runtime.GOOS == "windows" {
		t.Skip("uses a Unix program")
	}
	cmd := exec.Command("sleep", "10")
	if err := Start(cmd); err != nil {
		t.Fatal(err)
	}
	pid := cmd.Process.Pid
	var listed bool
	Sweep(func(own func(int) bool) { listed = own(pid) })
	if !listed {
		t.Fatal("a started child is not listed as own")
	}
	cmd.Process.Kill()
	cmd.Wait()
	Done(pid)
	Sweep(func(own func(int) bool) { listed = own(pid) })
	if listed {
		t.Fatal("a waited-for child is still listed")
	}
	if err := Start(exec.Command("/nonexistent/program")); err == nil {
		t.Fatal("a program that cannot start was started")
	}
}
