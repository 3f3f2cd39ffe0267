//go:build unix

package shell

import (
	"bytes"
	"context"
	"os/exec"
	"testing"
)

// BenchmarkRunTrue and BenchmarkBashTrueDirect compare the runner with
// os/exec alone on the cheapest command; bench/shell/run.sh prints the
// same comparison, interleaved, with the tool on top.
func BenchmarkRunTrue(b *testing.B) {
	dir := b.TempDir()
	for b.Loop() {
		if _, err := Run(context.Background(), Spec{Command: "true", Dir: dir}, NewCapture(64<<10)); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBashTrueDirect(b *testing.B) {
	dir := b.TempDir()
	sh, err := FindShell()
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		cmd := exec.Command(sh, "-c", "true")
		cmd.Dir = dir
		var out bytes.Buffer
		cmd.Stdout, cmd.Stderr = &out, &out
		if err := cmd.Run(); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkCaptureTwoMillionLines measures keeping the head and tail of
// a large output (what `seq 1 2000000` prints), without the process.
func BenchmarkCaptureTwoMillionLines(b *testing.B) {
	var data bytes.Buffer
	for i := 1; i <= 2000000; i++ {
		data.WriteString("1234567\n")
	}
	chunk := 64 << 10
	b.SetBytes(int64(data.Len()))
	for b.Loop() {
		c := NewCapture(64 << 10)
		buf := data.Bytes()
		for i := 0; i < len(buf); i += chunk {
			c.Write(buf[i:min(i+chunk, len(buf))])
		}
		_ = c.String()
	}
}
