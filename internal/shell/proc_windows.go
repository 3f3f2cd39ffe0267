package shell

import (
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"time"
	"unicode/utf16"
	"unsafe"

	"golang.org/x/sys/windows"

	"github.com/tether-dev/tether/internal/children"
)

// On Windows a command runs in PowerShell, inside a Job Object of its own:
// every process it starts, however deep, is in the job (Windows puts a
// child in its parent's job), and the job is set to kill everything in it
// when its last handle closes. The command is started suspended, put in
// the job, and only then resumed, so not even its first child escapes.
// Stopping it (timeout, cancellation, shutdown, or what it leaves running
// when it ends) terminates the whole job at once: Windows has no SIGTERM
// for console programs, so there is no grace period. Should the daemon
// die, however it dies, the system closes its handles and the jobs kill
// their processes.

const supported = true

// termSignals are not used on Windows; the name is shared with Unix code.
var termSignals = []syscall.Signal{syscall.SIGTERM}

// shellArgs runs a command line in PowerShell. The command goes as
// -EncodedCommand (UTF-16LE, base64), which PowerShell decodes itself, so
// no quoting of the Windows command line can change it.
func shellArgs(command string) []string {
	u := utf16.Encode([]rune(command))
	b := make([]byte, 2*len(u))
	for i, c := range u {
		b[2*i], b[2*i+1] = byte(c), byte(c>>8)
	}
	return []string{"-NoLogo", "-NoProfile", "-NonInteractive", "-EncodedCommand", base64.StdEncoding.EncodeToString(b)}
}

// tree is the command's Job Object.
type tree struct{ job windows.Handle }

func (t tree) release() {
	if t.job != 0 {
		windows.CloseHandle(t.job)
	}
}

func prepareTree() {}

func adoptedAny() bool { return false }

const recordGroups = false

func isolationName() string {
	return "a Job Object per command (its whole process tree is terminated at once, without a grace period)"
}

// jobAccounting is JOBOBJECT_BASIC_ACCOUNTING_INFORMATION.
type jobAccounting struct {
	TotalUserTime, TotalKernelTime, ThisPeriodTotalUserTime, ThisPeriodTotalKernelTime int64
	TotalPageFaultCount, TotalProcesses, ActiveProcesses, TotalTerminatedProcesses     uint32
}

var ntResumeProcess = windows.NewLazySystemDLL("ntdll.dll").NewProc("NtResumeProcess")

// startTree starts cmd suspended, puts it in a new Job Object that kills
// its processes when closed, and resumes it.
func startTree(cmd *exec.Cmd, _ Spec) (*exec.Cmd, tree, error) {
	cmd.SysProcAttr = &syscall.SysProcAttr{
		CreationFlags: windows.CREATE_SUSPENDED | windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_NO_WINDOW,
		HideWindow:    true,
	}
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return cmd, tree{}, fmt.Errorf("creating a Job Object: %w", err)
	}
	info := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{}
	info.BasicLimitInformation.LimitFlags = windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&info)), uint32(unsafe.Sizeof(info))); err != nil {
		windows.CloseHandle(job)
		return cmd, tree{}, fmt.Errorf("setting up the Job Object: %w", err)
	}
	if err := children.Start(cmd); err != nil {
		windows.CloseHandle(job)
		return cmd, tree{}, err
	}
	h, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE|windows.PROCESS_SUSPEND_RESUME|windows.PROCESS_QUERY_LIMITED_INFORMATION, false, uint32(cmd.Process.Pid))
	if err == nil {
		err = windows.AssignProcessToJobObject(job, h)
		if err == nil {
			if r, _, _ := ntResumeProcess.Call(uintptr(h)); r != 0 {
				err = fmt.Errorf("resuming the shell: NTSTATUS %#x", r)
			}
		}
		windows.CloseHandle(h)
	}
	if err != nil {
		// Never let a shell run outside its job.
		cmd.Process.Kill()
		cmd.Wait()
		children.Done(cmd.Process.Pid)
		windows.CloseHandle(job)
		return cmd, tree{}, fmt.Errorf("putting the shell in its Job Object: %w", err)
	}
	return cmd, tree{job: job}, nil
}

// active counts the job's running processes.
func (t tree) active() int {
	var a jobAccounting
	if err := windows.QueryInformationJobObject(t.job, windows.JobObjectBasicAccountingInformation, uintptr(unsafe.Pointer(&a)), uint32(unsafe.Sizeof(a)), nil); err != nil {
		return 0
	}
	return int(a.ActiveProcesses)
}

// terminate ends every process in the command's job and returns how many
// there were besides the shell, when the shell has already ended.
func (p *Process) terminate(bool) int {
	n := p.tree.active()
	if n == 0 {
		return 0
	}
	_ = windows.TerminateJobObject(p.tree.job, 1)
	deadline := time.Now().Add(killWait)
	for p.tree.active() > 0 && time.Now().Before(deadline) {
		time.Sleep(5 * time.Millisecond)
	}
	if !p.exited() {
		n-- // the shell itself is not a leftover
	}
	return max(n, 0)
}

// exitStatus reads the exit code; Windows has no signals.
func exitStatus(ps *os.ProcessState) (int, string) {
	if ps == nil {
		return -1, ""
	}
	return ps.ExitCode(), ""
}

func signalGroup(int, syscall.Signal) bool { return false }
func signalPid(int, syscall.Signal)        {}
func descendants(int) []int                { return nil }
func procStart(int) (uint64, bool)         { return 0, false }
func markedProcs(string, bool) []int       { return nil }

// tryLock takes an exclusive lock on f without waiting; the system drops
// it when the holder dies.
func tryLock(f *os.File) error {
	var ol windows.Overlapped
	return windows.LockFileEx(windows.Handle(f.Fd()), windows.LOCKFILE_EXCLUSIVE_LOCK|windows.LOCKFILE_FAIL_IMMEDIATELY, 0, 1, 0, &ol)
}

// FindShell picks PowerShell: Windows PowerShell from the system folder,
// which every Windows has, before anything on PATH, so that a workspace
// cannot put its own first; then PowerShell 7 (pwsh).
func FindShell() (string, error) {
	if root := os.Getenv("SystemRoot"); root != "" {
		p := filepath.Join(root, "System32", "WindowsPowerShell", "v1.0", "powershell.exe")
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			return p, nil
		}
	}
	for _, name := range []string{"powershell.exe", "pwsh.exe"} {
		if p, err := exec.LookPath(name); err == nil {
			return p, nil
		}
	}
	return "", errors.New("no shell was found: PowerShell (powershell.exe or pwsh.exe) is not installed or not on PATH")
}

// ThisPlatform describes Windows: PowerShell in a Job Object.
func ThisPlatform() Platform {
	return Platform{Shell: "PowerShell", POSIX: false,
		Limits: "On Windows a command that is stopped is ended at once, with no time to clean up."}
}

// sweepAdopted has nothing to do: no orphan is ever handed to the daemon here.
func sweepAdopted() {}

// signalName names a signal; on Windows only the sandbox's report would
// carry one, and Windows has no sandbox.
func signalName(s syscall.Signal) string { return s.String() }
