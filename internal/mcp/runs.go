package mcp

import (
	"context"
	"fmt"
	"sync"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/tool"
)

// run is one tool call of protocol 2026-07-28 or later, running apart
// from the tools/call requests that serve it: a call that needs the
// user's answers spans one tools/call per question, and waits, parked,
// in between.
type run struct {
	id     string // the requestState that names it to the client
	name   string
	cancel context.CancelFunc
	// needs carries the questions the call needs answered by the client.
	needs chan *need
	done  chan struct{}

	// Set before done is closed.
	result     tool.Result
	requestID  string
	checkpoint string
}

// need is one question a call waits on.
type need struct {
	key   string
	req   sdk.InputRequest
	reply chan needReply // buffered: the answer never waits
}

type needReply struct {
	resp sdk.InputResponse
	err  error
}

// parked holds the calls waiting for the client to come back with an
// answer. A call not resumed within wait is stopped: what asked did not
// happen, and nothing is left waiting forever.
type parked struct {
	wait time.Duration

	mu   sync.Mutex
	runs map[string]*parkedRun
}

type parkedRun struct {
	r     *run
	n     *need
	timer *time.Timer
}

func newParked(wait time.Duration) *parked {
	return &parked{wait: wait, runs: map[string]*parkedRun{}}
}

// park keeps r until the client answers n.
func (p *parked) park(r *run, n *need) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.runs[r.id] = &parkedRun{r: r, n: n, timer: time.AfterFunc(p.wait, func() {
		if r, _ := p.take(r.id); r != nil {
			r.cancel()
		}
	})}
}

// take unparks the run named id; nil when there is none.
func (p *parked) take(id string) (*run, *need) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pr := p.runs[id]
	if pr == nil {
		return nil, nil
	}
	delete(p.runs, id)
	pr.timer.Stop()
	return pr.r, pr.n
}

// closeAll stops every parked run.
func (p *parked) closeAll() {
	p.mu.Lock()
	defer p.mu.Unlock()
	for id, pr := range p.runs {
		pr.timer.Stop()
		pr.r.cancel()
		delete(p.runs, id)
	}
}

// asker reaches the user and the client's model for one call.
type asker interface {
	caps() *sdk.ClientCapabilities
	// client names the MCP client for people ("Claude Code").
	client() string
	elicit(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error)
	sample(ctx context.Context, p *sdk.CreateMessageWithToolsParams) (*sdk.CreateMessageWithToolsResult, error)
}

type askerKey struct{}

func withAsker(ctx context.Context, a asker) context.Context {
	return context.WithValue(ctx, askerKey{}, a)
}

func askerFrom(ctx context.Context) asker {
	a, _ := ctx.Value(askerKey{}).(asker)
	return a
}

// sessionAsker sends requests to the client while the call runs, as
// protocols before 2026-07-28 allow.
type sessionAsker struct{ ss *sdk.ServerSession }

func (a sessionAsker) caps() *sdk.ClientCapabilities { return sdkCaps(a.ss) }

func (a sessionAsker) client() string { return clientName(a.ss) }

func (a sessionAsker) elicit(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	return a.ss.Elicit(ctx, p)
}

func (a sessionAsker) sample(ctx context.Context, p *sdk.CreateMessageWithToolsParams) (*sdk.CreateMessageWithToolsResult, error) {
	return a.ss.CreateMessageWithTools(ctx, p)
}

// resultAsker puts the question in the call's result and waits, parked,
// for the client to call again with the answer (SEP-2322).
type resultAsker struct {
	r    *run
	c    *sdk.ClientCapabilities
	name string

	mu  sync.Mutex
	seq int
}

func (a *resultAsker) caps() *sdk.ClientCapabilities { return a.c }

func (a *resultAsker) client() string { return a.name }

func (a *resultAsker) elicit(ctx context.Context, p *sdk.ElicitParams) (*sdk.ElicitResult, error) {
	resp, err := a.ask(ctx, "elicit", p)
	if err != nil {
		return nil, err
	}
	res, ok := resp.(*sdk.ElicitResult)
	if !ok {
		return nil, fmt.Errorf("the client answered a question with %T", resp)
	}
	return res, nil
}

func (a *resultAsker) sample(ctx context.Context, p *sdk.CreateMessageWithToolsParams) (*sdk.CreateMessageWithToolsResult, error) {
	resp, err := a.ask(ctx, "sample", p)
	if err != nil {
		return nil, err
	}
	res, ok := resp.(*sdk.CreateMessageWithToolsResult)
	if !ok {
		return nil, fmt.Errorf("the client answered a model request with %T", resp)
	}
	return res, nil
}

func (a *resultAsker) ask(ctx context.Context, kind string, req sdk.InputRequest) (sdk.InputResponse, error) {
	a.mu.Lock()
	a.seq++
	n := &need{key: fmt.Sprintf("%s-%d", kind, a.seq), req: req, reply: make(chan needReply, 1)}
	a.mu.Unlock()
	select {
	case a.r.needs <- n:
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	select {
	case rep := <-n.reply:
		return rep.resp, rep.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}
