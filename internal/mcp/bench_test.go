package mcp

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/tools"
)

// BenchmarkNewServer is the server's own start-up work, before any
// message: the registry's descriptions and schemas, the SDK server, the
// job manager.
func BenchmarkNewServer(b *testing.B) {
	home := b.TempDir()
	b.Setenv("XDG_STATE_HOME", home)
	ws := b.TempDir()
	for b.Loop() {
		s, err := newServer(Options{Registry: tools.Builtin(), Workspaces: []string{ws}})
		if err != nil {
			b.Fatal(err)
		}
		s.close()
	}
}

// BenchmarkReadFile is one read_file call of a 4 KiB file through the
// whole server: the SDK's client and server, the transport, the registry.
func BenchmarkReadFile(b *testing.B) {
	home := b.TempDir()
	b.Setenv("XDG_STATE_HOME", home)
	ws := b.TempDir()
	names := []string{"a.txt", "b.txt"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(ws, n), bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 64), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), sr, sw, Options{Registry: tools.Builtin(), Workspaces: []string{ws}})
		sw.Close()
	}()
	cs, err := sdk.NewClient(&sdk.Implementation{Name: "b", Version: "1"}, nil).Connect(context.Background(), &sdk.IOTransport{Reader: cr, Writer: cw}, &sdk.ClientSessionOptions{ProtocolVersion: "2025-11-25"})
	if err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		res, err := cs.CallTool(context.Background(), &sdk.CallToolParams{Name: "read_file", Arguments: map[string]any{"path": names[i%2]}})
		if err != nil || res.IsError {
			b.Fatal(err, res)
		}
		i++
	}
	b.StopTimer()
	cs.Close()
	<-served
}

// BenchmarkReadFileServer is BenchmarkReadFile with a client that only
// writes prepared lines and reads the answers: what it measures is the
// server's own work.
func BenchmarkReadFileServer(b *testing.B) {
	home := b.TempDir()
	b.Setenv("XDG_STATE_HOME", home)
	ws := b.TempDir()
	names := []string{"a.txt", "b.txt"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(ws, n), bytes.Repeat([]byte("0123456789abcdef0123456789abcdef0123456789abcdef0123456789abcde\n"), 64), 0o644); err != nil {
			b.Fatal(err)
		}
	}
	cr, sw := io.Pipe()
	sr, cw := io.Pipe()
	served := make(chan error, 1)
	go func() {
		served <- Serve(context.Background(), sr, sw, Options{Registry: tools.Builtin(), Workspaces: []string{ws}})
		sw.Close()
	}()
	answers := bufio.NewReader(cr)
	send := func(line string, wait bool) {
		if _, err := io.WriteString(cw, line+"\n"); err != nil {
			b.Fatal(err)
		}
		if wait {
			if _, err := answers.ReadBytes('\n'); err != nil {
				b.Fatal(err)
			}
		}
	}
	send(`{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":"2025-11-25","capabilities":{},"clientInfo":{"name":"b","version":"1"}}}`, true)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`, false)
	i := 0
	for b.Loop() {
		i++
		send(`{"jsonrpc":"2.0","id":`+strconv.Itoa(i)+`,"method":"tools/call","params":{"name":"read_file","arguments":{"path":"`+names[i%2]+`"}}}`, true)
	}
	b.StopTimer()
	cw.Close()
	<-served
}
