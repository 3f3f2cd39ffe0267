package cmdline

import "testing"

func TestUnparsedAlwaysAsks(t *testing.T) {
	a := Unparsed("Get-ChildItem", "PowerShell command lines are not parsed")
	if a.Unknowable == "" || len(a.Programs) != 0 {
		t.Fatalf("Unparsed = %+v", a)
	}
	if got := a.AllowList(Options{}); got.OK || got.Why != "PowerShell command lines are not parsed" {
		t.Fatalf("AllowList = %+v", got)
	}
}
