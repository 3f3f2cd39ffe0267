// Package mcp serves Tether's tools over the Model Context Protocol, for
// agents other than the editor's chat (Claude Code, Codex, Cursor, the MCP
// Inspector). It is a host for the same registry the daemon serves: the
// same names, descriptions, schemas, guardrails, permission modes, saved
// rules, output caps and undo checkpoints.
//
// What the editor does for the daemon, the MCP client does here:
// approvals and ask_user questions go out as elicitation requests (a
// client that cannot elicit, or declines, gets the step refused, never
// silently allowed), a sub-agent's model turns as sampling requests, and
// the workspace comes from --workspace or else from the client's roots.
// Calls of one session that follow each other without a long pause form
// one request, so one undo checkpoint puts back what a client did in one
// go.
//
// The protocol versions are those the SDK negotiates, from 2024-11-05 to
// 2026-07-28. From 2026-07-28 on a server may no longer send requests of
// its own while it serves a call; a call that needs the user's answer
// returns the question as an input request instead, and the tool waits,
// parked, until the client calls again with the answer.
package mcp
