// Test-only extension for Tether's end-to-end tests (never shipped).
//
// It stands in for a hosted model and an agent, so the real chat panel can
// drive Tether without any network:
//  - a scripted language model (vendor "tether-e2e") that answers each turn
//    with the next tool call of a script, then with a closing text;
//  - a chat participant, @tethertest, that runs the usual agent loop: ask the
//    model, invoke the tool it names with the chat request's
//    toolInvocationToken (so Tether sees a real chat turn), feed the result
//    back, and show every step in the chat.
//
// The script comes from the JSON file named by TETHER_E2E_SCRIPT, which the
// test driver writes; what happened is appended, one JSON object a line, to
// TETHER_E2E_EVENTS. Both paths reach the extension host through
// code-server's environment.

const fs = require('node:fs');
const vscode = require('vscode');

const VENDOR = 'tether-e2e';

function record(event) {
  const file = process.env.TETHER_E2E_EVENTS;
  if (file) {
    fs.appendFileSync(file, JSON.stringify({ at: Date.now(), ...event }) + '\n');
  }
}

/**
 * The driver's script for a prompt. The file holds { byMarker: { "#name":
 * { steps: [{ tool, input }], reply } } }: the script whose marker the
 * prompt contains is played. Read per turn, so scenarios can add scripts.
 */
function loadScript(prompt) {
  const file = process.env.TETHER_E2E_SCRIPT;
  if (!file) {
    throw new Error('TETHER_E2E_SCRIPT is not set: this extension only runs under the e2e driver');
  }
  const all = JSON.parse(fs.readFileSync(file, 'utf8'));
  const marker = Object.keys(all.byMarker || {}).find((m) => prompt.includes(m));
  if (!marker) {
    return { steps: [], reply: `E2E_MODEL_ERROR no script for the prompt ${JSON.stringify(prompt)}` };
  }
  return all.byMarker[marker];
}

/** The text of the conversation's first user message: the prompt. */
function promptOf(messages) {
  const first = messages[0];
  return first ? textOf(first.content) : '';
}

function textOf(parts) {
  return (Array.isArray(parts) ? parts : [parts])
    .map((p) => (typeof p === 'string' ? p : p instanceof vscode.LanguageModelTextPart ? p.value : p && typeof p.value === 'string' ? p.value : ''))
    .join('');
}

/**
 * The scripted model. Its n-th answer in a conversation is the script's n-th
 * tool call, where n counts the tool results already in the conversation;
 * once the script is played it answers with the closing text. It only offers
 * a tool the request actually lists, as a real model would.
 */
const scriptedModel = {
  provideLanguageModelChatInformation() {
    return [{
      id: 'scripted', name: 'Tether E2E Scripted', family: 'tether-e2e', version: '1',
      maxInputTokens: 200000, maxOutputTokens: 8192, capabilities: { toolCalling: true },
    }];
  },
  async provideLanguageModelChatResponse(_model, messages, options, progress) {
    const script = childScript(loadScript(promptOf(messages)), messages);
    const done = messages.flatMap((m) => m.content).filter((p) => p instanceof vscode.LanguageModelToolResultPart).length;
    const offered = new Set((options.tools || []).map((t) => t.name));
    const step = script.steps[done];
    if (!step) {
      progress.report(new vscode.LanguageModelTextPart(script.reply));
      return;
    }
    if (!offered.has(step.tool)) {
      progress.report(new vscode.LanguageModelTextPart(`E2E_MODEL_ERROR the request did not offer ${step.tool}`));
      return;
    }
    progress.report(new vscode.LanguageModelToolCallPart(`call-${done + 1}`, step.tool, step.input));
  },
  async provideTokenCount(_model, text) {
    return Math.ceil((typeof text === 'string' ? text : JSON.stringify(text)).length / 4);
  },
};

/**
 * A conversation Tether's daemon started for a sub-agent (its first message
 * is the sub-agent's brief) plays the script's `child` part, if it has one:
 * { steps, reply }, with the daemon's own tool names (read_file, not
 * tether_read_file). Every turn it answers is recorded.
 */
function childScript(script, messages) {
  const first = messages.length > 0 ? textOf(messages[0].content) : '';
  if (!script.child || !first.startsWith('You are a sub-agent')) {
    return script;
  }
  const done = messages.flatMap((m) => m.content).filter((p) => p instanceof vscode.LanguageModelToolResultPart).length;
  record({ kind: 'child-turn', turn: done + 1, brief: first.slice(0, 200) });
  return script.child;
}

/** Shows text as a Markdown block quote, line for line, wrapping in the narrow chat view. */
function quote(text) {
  return text
    .split('\n')
    .map((line) => '> ' + line.replace(/[\\`*_{}[\]()#+\-.!|<>~]/g, '\\$&').replace(/\t/g, ' → '))
    .join('  \n');
}

/** One agent turn: model and tools take turns until the model answers in text. */
async function agent(request, _context, stream, token) {
  record({ kind: 'request', prompt: request.prompt, toolReferences: (request.toolReferences || []).map((r) => r.name) });
  const [model] = await vscode.lm.selectChatModels({ vendor: VENDOR });
  if (!model) {
    stream.markdown('E2E_AGENT_ERROR no scripted model is registered');
    record({ kind: 'error', message: 'no model' });
    return {};
  }
  const messages = [vscode.LanguageModelChatMessage.User(request.prompt)];
  for (let round = 0; round < 10 && !token.isCancellationRequested; round++) {
    // Tether's own tools, and those of the MCP servers the workspace
    // configures (VS Code tags those 'mcp'; a server started by this
    // request adds its tools as the request goes on): the mcp scenario
    // drives `tether mcp` through VS Code's own MCP client.
    const tools = vscode.lm.tools.filter((t) => t.tags.includes('tether') || t.tags.includes('mcp'));
    record({ kind: 'tools', names: tools.map((t) => t.name) });
    const response = await model.sendRequest(messages, { tools }, token);
    const calls = [];
    let text = '';
    for await (const part of response.stream) {
      if (part instanceof vscode.LanguageModelToolCallPart) {
        calls.push(part);
      } else if (part instanceof vscode.LanguageModelTextPart) {
        text += part.value;
      }
    }
    if (calls.length === 0) {
      stream.markdown(text);
      record({ kind: 'reply', text });
      return {};
    }
    messages.push(vscode.LanguageModelChatMessage.Assistant(calls));
    for (const call of calls) {
      record({ kind: 'tool-call', tool: call.name, input: call.input, hasToken: request.toolInvocationToken !== undefined });
      let result;
      try {
        const r = await vscode.lm.invokeTool(call.name, { input: call.input, toolInvocationToken: request.toolInvocationToken }, token);
        result = textOf(r.content);
      } catch (e) {
        result = `E2E_TOOL_THREW ${e && e.name}: ${e && e.message}`;
      }
      record({ kind: 'tool-result', tool: call.name, input: call.input, result });
      stream.markdown(`**${call.name}** answered:\n\n${quote(result)}\n\n`);
      messages.push(vscode.LanguageModelChatMessage.User([new vscode.LanguageModelToolResultPart(call.callId, [new vscode.LanguageModelTextPart(result)])]));
    }
  }
  stream.markdown('E2E_AGENT_ERROR the script did not finish within 10 rounds');
  record({ kind: 'error', message: 'too many rounds' });
  return {};
}

async function activate(context) {
  context.subscriptions.push(
    vscode.lm.registerLanguageModelChatProvider(VENDOR, scriptedModel),
    vscode.chat.createChatParticipant('tether-e2e.agent', (request, ctx, stream, token) =>
      agent(request, ctx, stream, token).catch((e) => {
        record({ kind: 'error', message: String(e && e.stack || e) });
        stream.markdown(`E2E_AGENT_ERROR ${e && e.message}`);
        return {};
      })),
  );
  // Asking for the models makes VS Code resolve this vendor's list now, so the
  // extension host knows the model before the first chat request names it.
  const models = await vscode.lm.selectChatModels({ vendor: VENDOR });
  record({ kind: 'activated', vscode: vscode.version, models: models.map((m) => m.id) });
}

function deactivate() {}

module.exports = { activate, deactivate };
