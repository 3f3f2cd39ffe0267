package mcp

import (
	"context"
	"fmt"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// openWorld names the tools that are not read-only and still reach past
// the workspace: a command may do anything its program does. (A read-only
// tool of high risk reaches the live web.)
var openWorld = map[string]bool{"shell": true}

// sdkTool describes a registry tool to MCP clients: the same name,
// description and schema, with hints derived from its risk and whether it
// is read-only. A tool that changes files declares the shape of its
// structured result, which says what became of the change.
func sdkTool(info protocol.ToolInfo, changes bool) *sdk.Tool {
	t := &sdk.Tool{
		Name:        info.Name,
		Description: info.Description,
		InputSchema: info.InputSchema,
		Annotations: annotations(info),
	}
	if changes {
		t.OutputSchema = changeOutputSchema()
	}
	return t
}

// annotations are the MCP hints of a tool: read-only tools change nothing
// and may be repeated; a tool that changes something is destructive unless
// its risk is low (it only changes the agent's own state); the open world
// is the live web and whatever a command reaches, not the workspace.
func annotations(info protocol.ToolInfo) *sdk.ToolAnnotations {
	destructive := !info.ReadOnly && info.Risk != protocol.RiskLow
	open := (info.ReadOnly && info.Risk == protocol.RiskHigh) || openWorld[info.Name]
	return &sdk.ToolAnnotations{
		ReadOnlyHint:    info.ReadOnly,
		DestructiveHint: &destructive,
		IdempotentHint:  info.ReadOnly,
		OpenWorldHint:   &open,
	}
}

// callTool serves tools/call: a fresh call, or the client coming back with
// the user's answer to a call parked for it.
func (s *server) callTool(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	if state := req.Params.RequestState; state != "" {
		return s.resume(ctx, req)
	}
	ss := req.Session
	env, st, err := s.env(ctx, ss)
	if err != nil {
		if ctx.Err() != nil {
			return s.errorResult(req.Params.Name, "%s was cancelled before it started; nothing was changed", req.Params.Name), nil
		}
		return s.errorResult(req.Params.Name, "%s could not run: %v", req.Params.Name, err), nil
	}
	requestID := s.requests.begin()
	c := &tool.Call{
		Name:      req.Params.Name,
		Args:      req.Params.Arguments,
		RequestID: requestID,
		Budget:    tool.NewBudget(0, s.settings.TokenBudget),
		Session:   s.session,
		Env:       env,
	}
	finish := func(r *run, res tool.Result) {
		r.result, r.requestID = res, requestID
		if res.Diff != "" && st != nil {
			r.checkpoint, _ = st.Undo.CheckpointID(requestID)
		}
		s.requests.end(requestID)
	}
	if !inputByResult(ss) {
		// Questions go to the client as requests of their own while the
		// call runs, so it runs here, within this tools/call: the
		// client's cancel of it, or the server's end, stops it.
		runCtx, cancel := context.WithCancel(ctx)
		defer cancel()
		defer context.AfterFunc(s.ctx, cancel)()
		defer s.reportProgress(ctx, req)()
		r := &run{name: req.Params.Name}
		finish(r, s.reg.Invoke(withAsker(runCtx, sessionAsker{ss}), c))
		return s.result(r), nil
	}
	// Questions travel in the result: the call runs apart from the
	// tools/call that started it, which may end before it does.
	runCtx, cancel := context.WithCancel(s.ctx)
	r := &run{
		id:     randomHex(16),
		name:   req.Params.Name,
		cancel: cancel,
		needs:  make(chan *need),
		done:   make(chan struct{}),
	}
	a := &resultAsker{r: r, c: sdkCaps(ss), name: clientName(ss)}
	s.running.Add(1)
	go func() {
		defer s.running.Done()
		defer close(r.done)
		finish(r, s.reg.Invoke(withAsker(runCtx, a), c))
	}()
	return s.await(ctx, req, r)
}

// resume hands the client's answer to the parked call it belongs to.
func (s *server) resume(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
	r, n := s.runs.take(req.Params.RequestState)
	if r == nil {
		return s.errorResult(req.Params.Name, "%s is no longer waiting for this answer (it waits %s at most, and only within one session); the step that asked did not happen. Call the tool again.", req.Params.Name, s.o.InputWait), nil
	}
	if r.name != req.Params.Name {
		n.reply <- needReply{err: fmt.Errorf("the client answered for %s, not %s", req.Params.Name, r.name)}
	} else if resp, ok := req.Params.InputResponses[n.key]; ok && resp != nil {
		n.reply <- needReply{resp: resp}
	} else {
		n.reply <- needReply{err: fmt.Errorf("the client came back without an answer to %q", n.key)}
	}
	return s.await(ctx, req, r)
}

// await waits for a parked-capable call's end, for a question it needs the
// client to put to the user (parking it), or for the client to cancel it.
func (s *server) await(ctx context.Context, req *sdk.CallToolRequest, r *run) (*sdk.CallToolResult, error) {
	defer s.reportProgress(ctx, req)()
	select {
	case <-r.done:
		r.cancel()
		return s.result(r), nil
	case need := <-r.needs:
		s.runs.park(r, need)
		return &sdk.CallToolResult{
			InputRequests: sdk.InputRequestMap{need.key: need.req},
			RequestState:  r.id,
		}, nil
	case <-ctx.Done():
		// notifications/cancelled, or the client went away: stopping the
		// run kills the processes it started.
		r.cancel()
		<-r.done
		return s.result(r), nil
	}
}

// reportProgress sends progress notifications while a call runs, when the
// client asked for them with a progress token; the returned func stops it.
func (s *server) reportProgress(ctx context.Context, req *sdk.CallToolRequest) (stop func()) {
	token := req.Params.GetProgressToken()
	if token == nil {
		return func() {}
	}
	done := make(chan struct{})
	finished := make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(s.o.ProgressEvery)
		defer t.Stop()
		started := time.Now()
		what := s.describe(req)
		for n := 1; ; n++ {
			select {
			case <-done:
				return
			case <-ctx.Done():
				return
			case <-t.C:
			}
			err := req.Session.NotifyProgress(ctx, &sdk.ProgressNotificationParams{
				ProgressToken: token,
				Progress:      float64(n),
				Message:       fmt.Sprintf("%s (%s so far)", what, time.Since(started).Round(time.Second)),
			})
			if err != nil {
				s.log.Debug("could not report progress", "err", err)
			}
		}
	}()
	return func() {
		close(done)
		<-finished
	}
}

// describe says in a few words what a call does, for progress messages.
func (s *server) describe(req *sdk.CallToolRequest) string {
	if t, ok := s.reg.Lookup(req.Params.Name); ok {
		return t.Describe(req.Params.Arguments)
	}
	return req.Params.Name
}
