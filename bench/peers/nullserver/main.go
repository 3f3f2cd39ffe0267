// Command nullserver is the floor the peers benchmark measures Tether
// against: a plain Go program speaking JSON-RPC with LSP framing on stdio
// that does nothing. It answers initialize with an empty result and every
// other request with "method not found"; it ends at the end of its input
// or on exit. Run as "nullserver version", it prints a line and exits: the
// start-up cost of a trivial Go binary.
package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"net/textproto"
	"os"
	"strconv"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == "version" {
		fmt.Println("nullserver")
		return
	}
	r := bufio.NewReader(os.Stdin)
	for {
		hdr, err := textproto.NewReader(r).ReadMIMEHeader()
		if err != nil {
			return
		}
		n, err := strconv.Atoi(hdr.Get("Content-Length"))
		if err != nil {
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(r, body); err != nil {
			return
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
		}
		if json.Unmarshal(body, &msg) != nil {
			continue
		}
		if msg.Method == "exit" {
			return
		}
		if msg.ID == nil {
			continue
		}
		var reply []byte
		if msg.Method == "initialize" {
			reply = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"result":{}}`, msg.ID)
		} else {
			reply = fmt.Appendf(nil, `{"jsonrpc":"2.0","id":%s,"error":{"code":-32601,"message":"method not found"}}`, msg.ID)
		}
		out := fmt.Appendf(nil, "Content-Length: %d\r\n\r\n%s", len(reply), reply)
		if _, err := os.Stdout.Write(out); err != nil {
			return
		}
	}
}
