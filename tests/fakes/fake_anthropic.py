#!/usr/bin/python3
"""FAKE of the Anthropic Messages API, for awaywork's tests (not Anthropic's code).

Answers POST /v1/messages (streaming SSE framed event by event as Anthropic sends it, or plain
JSON) with a script of turns that makes the real Claude Code CLI edit a file:
  turn 1 (the request offers tools, no tool_result yet): a tool_use of Claude Code's `Write`
         tool (file_path = <cwd from the system prompt>/<--file>, content = --content), or of
         `Bash` when the working directory cannot be found or --tool bash is given (opencode's
         lowercase `write` / `bash` likewise);
         With --mcp-tool NAME (an MCP tool as Claude Code offers it, mcp__SERVER__TOOL) and that
         tool offered, turn 1 is a tool_use of it instead (input --mcp-input, a JSON object);
  turn 2 (the request carries a tool_result): a final text message (--final). The request log
         holds the tool_result, so a test reads what the tool answered.
Side requests (no tools: titles, summaries, quota checks) get a short text. count_tokens
answers a count. Unknown paths are logged and answered with a minimal JSON 404.
"""

import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakeserver  # noqa: E402


def extra_args(p):
    p.add_argument("--file", default="AWAYWORK_FAKE_EDIT.txt", help="file the tool_use writes")
    p.add_argument("--content", default="written by the fake model\n")
    p.add_argument("--final", default="Done: I wrote the file.")
    p.add_argument("--tool", choices=["write", "bash"], default="write")
    p.add_argument("--model", default="claude-sonnet-4-5-20250929")
    p.add_argument("--mcp-tool", default="", help="call this offered tool first (mcp__S__T)")
    p.add_argument("--mcp-input", default="{}", help="its input, a JSON object")


def strings(node):
    """Every string in the request: Claude Code puts its environment block in the system
    prompt or in a user message depending on the version."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for x in node:
            yield from strings(x)
    elif isinstance(node, dict):
        for x in node.values():
            yield from strings(x)


def find_cwd(body):
    for s in strings([body.get("system"), body.get("messages")]):
        m = re.search(r"(?:Primary working directory|Working directory):[ \t]*(/[^\n]*)", s)
        if m:
            return m.group(1).strip()
    return None


def has_tool_result(body):
    msgs = body.get("messages") or []
    if not msgs:
        return False
    last = msgs[-1]
    content = last.get("content")
    return isinstance(content, list) and any(
        isinstance(b, dict) and b.get("type") == "tool_result" for b in content
    )


def tool_names(body):
    return {t.get("name") for t in (body.get("tools") or []) if isinstance(t, dict)}


def edit_call(args, names, cwd):
    """The tool_use that writes the file, in the dialect of the client: Claude Code's tools are
    `Write` {file_path, content} and `Bash`; opencode's are `write` {filePath, content} and
    `bash`."""
    for write, bash, path_key in (("Write", "Bash", "file_path"), ("write", "bash", "filePath")):
        if args.tool == "write" and write in names and cwd:
            return {"name": write,
                    "input": {path_key: os.path.join(cwd, args.file), "content": args.content}}
        if bash in names:
            cmd = "printf %s " + shlex.quote(args.content) + " > " + shlex.quote(args.file)
            return {"name": bash, "input": {"command": cmd, "description": "Write the file"}}
    return None


def plan(args, body):
    """The content blocks and stop_reason of this turn."""
    if has_tool_result(body):
        return [{"type": "text", "text": args.final}], "end_turn"
    names = tool_names(body)
    if args.mcp_tool and args.mcp_tool in names:
        use = {"name": args.mcp_tool, "input": json.loads(args.mcp_input)}
    else:
        use = edit_call(args, names, find_cwd(body))
    if use:
        return [{"type": "text", "text": "I will write the file."},
                {"type": "tool_use", "id": fakeserver.new_id("toolu_"), **use}], "tool_use"
    return [{"type": "text", "text": "Fake title"}], "end_turn"


def usage(body, output_tokens):
    size = len(json.dumps(body.get("messages") or []))
    return {"input_tokens": max(1, size // 4), "output_tokens": output_tokens,
            "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0}


class Handler(fakeserver.Handler):
    def do_GET(self):
        self.record(None, "unknown")
        self.send_json(404, {"type": "error", "error": {"type": "not_found_error",
                                                        "message": "fake: " + self.path}})

    def do_HEAD(self):
        self.send_response(200)
        self.send_header("content-length", "0")
        self.end_headers()

    def do_POST(self):
        raw, body = self.read_body()
        path = self.path.split("?")[0]
        if path.endswith("/v1/messages/count_tokens"):
            self.record(body, "count_tokens")
            return self.send_json(200, {"input_tokens": usage(body or {}, 0)["input_tokens"]})
        if not path.endswith("/v1/messages") or not isinstance(body, dict):
            self.record(body, "unknown")
            return self.send_json(404, {"type": "error", "error": {
                "type": "not_found_error", "message": "fake: " + self.path}})
        if self.server.args.error_status:
            self.record(body, "error")
            return self.send_json(self.server.args.error_status, {"type": "error", "error": {
                "type": "authentication_error", "message": "fake: invalid x-api-key"}})
        blocks, stop = plan(self.server.args, body)
        self.record(body, "tool_use" if stop == "tool_use" else "text")
        model = body.get("model") or self.server.args.model
        if body.get("stream"):
            self.stream(model, body, blocks, stop)
        else:
            msg = {"id": fakeserver.new_id("msg_"), "type": "message", "role": "assistant",
                   "model": model, "content": blocks, "stop_reason": stop,
                   "stop_sequence": None, "usage": usage(body, 12)}
            self.send_json(200, msg, {"request-id": fakeserver.new_id("req_")})

    def stream(self, model, body, blocks, stop):
        self.start_sse({"request-id": fakeserver.new_id("req_")})
        u = usage(body, 1)
        self.sse("message_start", {"type": "message_start", "message": {
            "id": fakeserver.new_id("msg_"), "type": "message", "role": "assistant",
            "model": model, "content": [], "stop_reason": None, "stop_sequence": None,
            "usage": u}})
        for i, block in enumerate(blocks):
            if block["type"] == "text":
                self.sse("content_block_start", {"type": "content_block_start", "index": i,
                                                 "content_block": {"type": "text", "text": ""}})
                if i == 0:
                    self.sse("ping", {"type": "ping"})
                text = block["text"]
                for piece in (text[: len(text) // 2], text[len(text) // 2:]):
                    self.sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                     "delta": {"type": "text_delta",
                                                               "text": piece}})
            else:
                start = {"type": "tool_use", "id": block["id"], "name": block["name"],
                         "input": {}}
                self.sse("content_block_start", {"type": "content_block_start", "index": i,
                                                 "content_block": start})
                js = json.dumps(block["input"])
                for piece in ("", js[: len(js) // 2], js[len(js) // 2:]):
                    self.sse("content_block_delta", {"type": "content_block_delta", "index": i,
                                                     "delta": {"type": "input_json_delta",
                                                               "partial_json": piece}})
            self.sse("content_block_stop", {"type": "content_block_stop", "index": i})
        self.sse("message_delta", {"type": "message_delta",
                                   "delta": {"stop_reason": stop, "stop_sequence": None},
                                   "usage": {"output_tokens": 12}})
        self.sse("message_stop", {"type": "message_stop"})
        self.end_sse()


if __name__ == "__main__":
    fakeserver.serve(Handler, fakeserver.parse_args(__doc__, extra_args))
