package tools

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/tether-dev/tether/internal/tool"
	"github.com/tether-dev/tether/protocol"
)

// An approval in the middle of a program pauses that call only: answered
// yes, the write happens and the program goes on; answered no, the call
// throws, the program sees it, and the earlier write stays.
func TestComposeApprovalInTheMiddle(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\n")
	h.write("b.txt", "two\n")
	answers := []protocol.Answer{protocol.AnswerYes, protocol.AnswerNo}
	host := &scriptedHost{fakeHost: h.host, answers: answers}
	h.env.Host = host
	res := h.call("compose", map[string]any{"code": `
		await tools.tether.read_file({path: "a.txt"});
		await tools.tether.read_file({path: "b.txt"});
		await tools.tether.edit_file({path: "a.txt", old_string: "one", new_string: "ONE"});
		let second = "made";
		try { await tools.tether.edit_file({path: "b.txt", old_string: "two", new_string: "TWO"}) }
		catch (e) { second = e.name + ": " + e.message }
		return second`})
	if res.IsError {
		t.Fatalf("program failed: %s", res.Content)
	}
	if len(host.requests) != 2 {
		t.Fatalf("%d approvals asked, want 2", len(host.requests))
	}
	if got := h.read("a.txt"); got != "ONE\n" {
		t.Errorf("a.txt = %q: the approved edit did not happen", got)
	}
	if got := h.read("b.txt"); got != "two\n" {
		t.Errorf("b.txt = %q: the declined edit happened", got)
	}
	if !strings.HasPrefix(res.Content, "ToolError: The user declined") {
		t.Errorf("the program did not see the refusal: %q", res.Content)
	}
	if !strings.Contains(res.Content, "3. edit_file") || !strings.Contains(res.Content, "4. edit_file") || !strings.Contains(res.Content, "refused: The user declined") {
		t.Errorf("call list: %q", res.Content)
	}
	if !strings.Contains(res.Diff, "a.txt") || strings.Contains(res.Diff, "b.txt") {
		t.Errorf("diff should hold the approved change only: %q", res.Diff)
	}
}

// scriptedHost answers approvals from a list, in order.
type scriptedHost struct {
	*fakeHost
	answers []protocol.Answer
}

func (s *scriptedHost) Approve(_ context.Context, req protocol.ApprovalRequestParams) (protocol.ApprovalRequestResult, error) {
	s.requests = append(s.requests, req)
	a := s.answers[0]
	s.answers = s.answers[1:]
	return protocol.ApprovalRequestResult{Answer: a}, nil
}

// Plan mode refuses a child's write as it refuses a direct one; the
// program sees the refusal, and the file is untouched.
func TestComposePlanModeRefusesChildWrite(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Mode = protocol.ModePlan
	h.write("a.txt", "one\n")
	res := h.call("compose", map[string]any{"code": `
		const r = await tools.tether.read_file({path: "a.txt"});
		await tools.tether.write_file({path: "a.txt", content: "changed\n"});
		return "wrote"`})
	if !res.IsError || !strings.Contains(res.Content, "plan") {
		t.Fatalf("the write was not refused in plan mode: %q", res.Content)
	}
	if got := h.read("a.txt"); got != "one\n" {
		t.Fatalf("a.txt = %q", got)
	}
	if len(h.host.requests) != 0 {
		t.Fatalf("plan mode asked the user: %+v", h.host.requests)
	}
}

// What the model gets back: the value, then the logs, then one line per
// call; the value is cut to the budget with the limit named, the rest kept.
func TestComposeReport(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\n")
	res := h.call("compose", map[string]any{"code": `
		const r = await tools.tether.read_file({path: "a.txt"});
		console.log("lines:", r.output.split("\n").length);
		try { await tools.tether.read_file({path: "missing.txt"}) } catch (e) {}
		return {first: r.output.trim(), n: 2}`})
	if res.IsError {
		t.Fatal(res.Content)
	}
	want := "{\"first\":\"1\\tone\",\"n\":2}\n\nLogs (1 line):\nlines: 2\n\nTool calls (2):\n1. read_file {\"path\":\"a.txt\"} ok\n2. read_file {\"path\":\"missing.txt\"} error: "
	if !strings.HasPrefix(res.Content, want) {
		t.Fatalf("report:\n%s\nwant it to start:\n%s", res.Content, want)
	}

	big := h.reg.Invoke(context.Background(), &tool.Call{Name: "compose", RequestID: "r2", Budget: tool.NewBudget(1000, 0), Session: h.sess, Env: h.env,
		Args: []byte(`{"code": "console.log(\"kept\"); return \"x\".repeat(100000)"}`)})
	if big.IsError || !strings.Contains(big.Content, "returned value limit") || !strings.Contains(big.Content, "kept") || len(big.Content) > tool.NewBudget(1000, 0).OutputChars() {
		t.Fatalf("large value: %d bytes: %q", len(big.Content), big.Content[max(0, len(big.Content)-400):])
	}
}

// A program outside the subset is refused with positions, before any call.
func TestComposeRefusedBeforeAnyCall(t *testing.T) {
	h := newHarness(t)
	h.write("a.txt", "one\n")
	res := h.call("compose", map[string]any{"code": "await tools.tether.write_file({path: \"b.txt\", content: \"x\"});\nconst s = `t`"})
	if !res.IsError || !strings.Contains(res.Content, "line 2:11: template literals") {
		t.Fatalf("%q", res.Content)
	}
	if len(h.host.requests) != 0 {
		t.Fatal("a refused program asked for approval")
	}
}

func TestComposeDescribeCountsLines(t *testing.T) {
	for code, want := range map[string]string{
		"return 1":               "Running a program of 1 line",
		"return 1\n":             "Running a program of 1 line",
		"const a = 1;\nreturn a": "Running a program of 2 lines",
	} {
		raw, _ := json.Marshal(map[string]string{"code": code})
		if got := Compose.Describe(raw); got != want {
			t.Errorf("%q: %q, want %q", code, got, want)
		}
	}
}

// What the model reads when a program hits a limit names the limit, never
// "null", whatever the program was doing.
func TestComposeLimitMessagesNameTheLimit(t *testing.T) {
	h := newHarness(t)
	h.env.Settings.Compose.MemoryBytes = 16 << 20
	// A low step limit: under the race detector the engine runs so slowly
	// that the default's 5,000,000 steps outlast the time limit.
	h.env.Settings.Compose.MaxSteps = 200_000
	for code, want := range map[string]string{
		"let a = []; for (;;) a.push({n: a.length})": "memory limit",
		"while (true) {}": "evaluation steps limit",
		"try { while (true) {} } catch (e) { return 1 }": "evaluation steps limit",
	} {
		res := h.call("compose", map[string]any{"code": code})
		if !res.IsError || !strings.Contains(res.Content, "The program stopped: the program hit its "+want) || strings.Contains(res.Content, "null") {
			t.Errorf("%s: %q", code, res.Content)
		}
	}
}
