#!/usr/bin/python3
"""FAKE of the OpenAI Responses API, for awaywork's tests (not OpenAI's code).

Answers POST /v1/responses with SSE framed as OpenAI sends it (response.created,
response.in_progress, response.output_item.added / deltas / .done, response.completed with
usage) and a script of turns that makes the real Codex CLI edit a file:
  turn 1 (no tool output in the input yet): in Codex's "code mode" (0.171: a custom `exec`
         tool running JavaScript, offered in an `additional_tools` input item) an `exec` call
         whose script runs `tools.apply_patch(...)` or `tools.exec_command(...)`; otherwise a
         call of Codex's edit tool: `apply_patch` (a
         custom/freeform tool, or a function taking {"input": patch}) adding --file, or a
         shell tool (`shell_command`, `exec_command` or `shell`) when --tool shell is given or
         no apply_patch is offered;
  turn 2 (the input carries a function_call_output / custom_tool_call_output): a final
         assistant message (--final).
GET /v1/models answers a one-model list; unknown paths are logged and answered 404.
"""

import json
import os
import shlex
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakeserver  # noqa: E402


def extra_args(p):
    p.add_argument("--file", default="AWAYWORK_FAKE_EDIT.txt", help="file the tool call writes")
    p.add_argument("--content", default="written by the fake model\n")
    p.add_argument("--final", default="Done: I wrote the file.")
    p.add_argument("--tool", choices=["patch", "shell"], default="patch")
    p.add_argument("--model", default="gpt-5-codex")


def has_tool_output(body):
    items = body.get("input") or []
    return isinstance(items, list) and any(
        isinstance(i, dict) and i.get("type", "").endswith("call_output") for i in items)


def flatten(tools):
    for t in tools or []:
        if not isinstance(t, dict):
            continue
        if t.get("type") == "namespace":
            yield from flatten(t.get("tools"))
        else:
            yield t


def tools(body):
    """Every tool offered: the classic `tools` list and, since Codex's "code mode", the
    namespaced tools of an `additional_tools` input item."""
    found = list(flatten(body.get("tools")))
    for item in body.get("input") or []:
        if isinstance(item, dict) and item.get("type") == "additional_tools":
            found += flatten(item.get("tools"))
    return {t.get("name"): t for t in found}


def patch_text(args):
    lines = "".join("+" + ln + "\n" for ln in args.content.rstrip("\n").split("\n"))
    return f"*** Begin Patch\n*** Add File: {args.file}\n{lines}*** End Patch\n"


def shell_call(args, offered):
    script = "printf %s " + shlex.quote(args.content) + " > " + shlex.quote(args.file)
    if "shell_command" in offered:
        return "shell_command", {"command": script}
    if "exec_command" in offered:
        return "exec_command", {"cmd": script}
    return "shell", {"command": ["bash", "-lc", script]}


def tool_item(args, body):
    """The output item of turn 1 (without id/status)."""
    offered = tools(body)
    call_id = fakeserver.new_id("call_")
    if offered.get("exec", {}).get("type") == "custom":
        # Code mode: the model writes JavaScript that calls the nested tools.
        if args.tool == "patch":
            js = "text(await tools.apply_patch(" + json.dumps(patch_text(args)) + "));"
        else:
            _, a = shell_call(args, {"exec_command": True})
            js = "text(await tools.exec_command(" + json.dumps(a) + "));"
        return {"type": "custom_tool_call", "call_id": call_id, "name": "exec", "input": js}
    ap = offered.get("apply_patch")
    if args.tool == "patch" and ap is not None:
        if ap.get("type") == "custom":
            return {"type": "custom_tool_call", "call_id": call_id, "name": "apply_patch",
                    "input": patch_text(args)}
        return {"type": "function_call", "call_id": call_id, "name": "apply_patch",
                "arguments": json.dumps({"input": patch_text(args)})}
    name, arguments = shell_call(args, offered)
    return {"type": "function_call", "call_id": call_id, "name": name,
            "arguments": json.dumps(arguments)}


def message_item(text):
    return {"type": "message", "role": "assistant",
            "content": [{"type": "output_text", "text": text, "annotations": []}]}


def usage(body, output_tokens):
    n = max(1, len(json.dumps(body.get("input") or [])) // 4)
    return {"input_tokens": n, "input_tokens_details": {"cached_tokens": 0},
            "output_tokens": output_tokens, "output_tokens_details": {"reasoning_tokens": 0},
            "total_tokens": n + output_tokens}


class Handler(fakeserver.Handler):
    def do_GET(self):
        self.record(None, "models" if self.path.split("?")[0].endswith("/models") else "unknown")
        if self.path.split("?")[0].endswith("/models"):
            return self.send_json(200, {"object": "list", "data": [
                {"id": self.server.args.model, "object": "model", "owned_by": "fake"}]})
        self.send_json(404, {"error": {"message": "fake: " + self.path, "type": "not_found"}})

    def do_POST(self):
        _, body = self.read_body()
        if not self.path.split("?")[0].endswith("/responses") or not isinstance(body, dict):
            self.record(body, "unknown")
            return self.send_json(404, {"error": {"message": "fake: " + self.path,
                                                  "type": "invalid_request_error"}})
        if self.server.args.error_status:
            self.record(body, "error")
            return self.send_json(self.server.args.error_status, {"error": {
                "message": "fake: Incorrect API key provided", "type": "invalid_request_error",
                "code": "invalid_api_key"}})
        if has_tool_output(body):
            items = [message_item(self.server.args.final)]
        else:
            items = [message_item("I will write the file."), tool_item(self.server.args, body)]
        self.record(body, items[-1]["type"])
        if body.get("stream", False):
            self.stream(body, items)
        else:
            self.send_json(200, self.response(body, items, "completed"))

    def response(self, body, output, status):
        return {"id": self.resp_id, "object": "response", "created_at": int(time.time()),
                "status": status, "model": body.get("model") or self.server.args.model,
                "output": output, "usage": usage(body, 12) if status == "completed" else None,
                "error": None, "incomplete_details": None}

    def event(self, name, data):
        data = {"type": name, "sequence_number": self.seq, **data}
        self.seq += 1
        self.sse(name, data)

    def stream(self, body, items):
        self.resp_id, self.seq = fakeserver.new_id("resp_"), 0
        self.start_sse({"x-request-id": fakeserver.new_id("req_")})
        self.event("response.created", {"response": self.response(body, [], "in_progress")})
        self.event("response.in_progress", {"response": self.response(body, [], "in_progress")})
        done = []
        for idx, item in enumerate(items):
            prefix = {"message": "msg_", "function_call": "fc_"}.get(item["type"], "ctc_")
            item = {"id": fakeserver.new_id(prefix), **item}
            self.event("response.output_item.added", {"output_index": idx, "item": {
                **item, "status": "in_progress",
                **({"content": []} if item["type"] == "message" else {}),
                **({"arguments": ""} if item["type"] == "function_call" else {}),
                **({"input": ""} if item["type"] == "custom_tool_call" else {})}})
            self.deltas(idx, item)
            item = {**item, "status": "completed"}
            self.event("response.output_item.done", {"output_index": idx, "item": item})
            done.append(item)
        self.event("response.completed", {"response": self.response(body, done, "completed")})
        self.end_sse()

    def deltas(self, idx, item):
        ids = {"item_id": item["id"], "output_index": idx}
        if item["type"] == "message":
            text = item["content"][0]["text"]
            part = {"type": "output_text", "text": "", "annotations": []}
            self.event("response.content_part.added", {**ids, "content_index": 0, "part": part})
            self.event("response.output_text.delta", {**ids, "content_index": 0, "delta": text})
            self.event("response.output_text.done", {**ids, "content_index": 0, "text": text})
            self.event("response.content_part.done", {**ids, "content_index": 0,
                                                      "part": {**part, "text": text}})
        elif item["type"] == "function_call":
            self.event("response.function_call_arguments.delta",
                       {**ids, "delta": item["arguments"]})
            self.event("response.function_call_arguments.done",
                       {**ids, "arguments": item["arguments"]})
        else:
            self.event("response.custom_tool_call_input.delta", {**ids, "delta": item["input"]})
            self.event("response.custom_tool_call_input.done", {**ids, "input": item["input"]})


if __name__ == "__main__":
    fakeserver.serve(Handler, fakeserver.parse_args(__doc__, extra_args))
