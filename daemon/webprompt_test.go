package daemon_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
	"github.com/tether-dev/tether/tools"
)

// Through tether serve: web_fetch with a prompt asks the editor's model
// (model/chat) about the page and returns its answer with the page's
// address; a client that serves no model gets the page's text, told that
// the prompt was not answered.
func TestWebFetchPromptThroughServe(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/plain")
		fmt.Fprintln(w, "Changelog: version 7.1 drops Python 3.8.")
	}))
	t.Cleanup(srv.Close)
	settings := &protocol.Settings{WebPrivateHosts: []string{"127.0.0.1"}, WebAllowedHosts: []string{"127.0.0.1"}}
	args := map[string]any{"url": srv.URL + "/changes", "prompt": "Which Python does 7.1 drop?"}

	var mu sync.Mutex
	var asked []protocol.ModelChatParams
	chat := func(_ context.Context, p protocol.ModelChatParams) (protocol.ModelChatResult, error) {
		mu.Lock()
		asked = append(asked, p)
		mu.Unlock()
		return protocol.ModelChatResult{Content: "Python 3.8.", StopReason: protocol.StopEnd}, nil
	}
	f := start(t, fixtureOptions{registry: tool.NewRegistry(tools.WebFetch), chat: chat})
	f.call(protocol.MethodInitialize, f.initParams(protocol.ClientCapabilities{Approval: true, Models: true}, settings), nil)
	r := f.tool("web_fetch", args)
	if r.IsError || !strings.Contains(r.Content, "Python 3.8.") || !strings.Contains(r.Content, srv.URL+"/changes") || !strings.Contains(r.Content, "without prompt") ||
		strings.Contains(r.Content, "Changelog:") {
		t.Fatalf("with a model: %+v", r)
	}
	mu.Lock()
	if len(asked) != 1 || !strings.Contains(asked[0].Messages[0].Content, "Changelog: version 7.1") || !strings.Contains(asked[0].Messages[0].Content, "Which Python does 7.1 drop?") {
		t.Errorf("model/chat got %+v", asked)
	}
	mu.Unlock()

	g := start(t, fixtureOptions{registry: tool.NewRegistry(tools.WebFetch)})
	g.call(protocol.MethodInitialize, g.initParams(protocol.ClientCapabilities{Approval: true}, settings), nil)
	r = g.tool("web_fetch", args)
	if r.IsError || !strings.Contains(r.Content, "Changelog: version 7.1 drops Python 3.8.") || !strings.Contains(r.Content, "prompt was not answered") {
		t.Fatalf("without a model: %+v", r)
	}
}
