#!/usr/bin/python3
"""FAKE of the Gemini API (generativelanguage v1beta), for awaywork's tests (not Google's code).

Answers POST /v1beta/models/{model}:generateContent (JSON) and :streamGenerateContent?alt=sse
(SSE `data:` chunks) with a script of turns that makes the real Gemini CLI edit a file:
  turn 1 (tools offered, no functionResponse yet): a functionCall of `write_file`
         {file_path: <cwd from the prompt>/<--file>, content} or of `run_shell_command`;
  turn 2 (the request carries a functionResponse): a final text (--final).
Requests without tools (the CLI's model router, titles) get a short text. countTokens answers
a count; unknown paths are logged and answered 404.
"""

import json
import os
import re
import shlex
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import fakeserver  # noqa: E402


def extra_args(p):
    p.add_argument("--file", default="AWAYWORK_FAKE_EDIT.txt", help="file the call writes")
    p.add_argument("--content", default="written by the fake model\n")
    p.add_argument("--final", default="Done: I wrote the file.")
    p.add_argument("--tool", choices=["write", "shell"], default="write")


def texts(node):
    if isinstance(node, str):
        yield node
    elif isinstance(node, list):
        for x in node:
            yield from texts(x)
    elif isinstance(node, dict):
        for x in node.values():
            yield from texts(x)


def find_cwd(body):
    for s in texts([body.get("systemInstruction"), body.get("contents")]):
        m = re.search(r"Workspace Directories:\**\s*\n\s*-\s*(/\S+)", s) or re.search(
            r"(?:working in the directory|[Ww]orking directory)[^/\n]*(/[^\s`'\"]*)", s)
        if m:
            return m.group(1).rstrip(".")
    return None


def functions(body):
    names = set()
    for t in body.get("tools") or []:
        for f in (t or {}).get("functionDeclarations") or []:
            names.add(f.get("name"))
    return names


def has_function_response(body):
    contents = body.get("contents") or []
    return bool(contents) and any(
        "functionResponse" in p for p in (contents[-1].get("parts") or []) if isinstance(p, dict))


def plan(args, body):
    if has_function_response(body):
        return [{"text": args.final}]
    names = functions(body)
    cwd = find_cwd(body)
    if args.tool == "write" and "write_file" in names and cwd:
        return [{"text": "I will write the file."},
                {"functionCall": {"name": "write_file", "args": {
                    "file_path": os.path.join(cwd, args.file), "content": args.content}}}]
    if "run_shell_command" in names:
        cmd = "printf %s " + shlex.quote(args.content) + " > " + shlex.quote(args.file)
        return [{"text": "I will write the file."},
                {"functionCall": {"name": "run_shell_command", "args": {
                    "command": cmd, "description": "Write the file"}}}]
    return [{"text": '{"reasoning": "fake", "model_choice": "flash"}'}]


def response(body, parts, model):
    n = max(1, len(json.dumps(body.get("contents") or [])) // 4)
    return {"candidates": [{"content": {"parts": parts, "role": "model"},
                            "finishReason": "STOP", "index": 0}],
            "usageMetadata": {"promptTokenCount": n, "candidatesTokenCount": 12,
                              "totalTokenCount": n + 12},
            "modelVersion": model, "responseId": fakeserver.new_id("")}


class Handler(fakeserver.Handler):
    def do_POST(self):
        _, body = self.read_body()
        path = self.path.split("?")[0]
        m = re.search(r"/models/([^/:]+):(\w+)$", path)
        if not m or not isinstance(body, dict):
            self.record(body, "unknown")
            return self.send_json(404, {"error": {"code": 404, "message": "fake: " + self.path,
                                                  "status": "NOT_FOUND"}})
        model, method = m.group(1), m.group(2)
        if method == "countTokens":
            self.record(body, "count_tokens")
            return self.send_json(200, {"totalTokens": len(json.dumps(body)) // 4})
        if self.server.args.error_status:
            self.record(body, "error")
            return self.send_json(self.server.args.error_status, {"error": {
                "code": self.server.args.error_status, "message": "fake: API key not valid",
                "status": "UNAUTHENTICATED"}})
        parts = plan(self.server.args, body)
        self.record(body, "function_call" if any("functionCall" in p for p in parts) else "text")
        if method == "streamGenerateContent":
            self.start_sse()
            for i, part in enumerate(parts):
                chunk = response(body, [part], model)
                if i + 1 < len(parts):
                    del chunk["candidates"][0]["finishReason"]
                self.chunk(("data: " + json.dumps(chunk) + "\r\n\r\n").encode())
            self.end_sse()
        else:
            self.send_json(200, response(body, parts, model))


if __name__ == "__main__":
    fakeserver.serve(Handler, fakeserver.parse_args(__doc__, extra_args))
