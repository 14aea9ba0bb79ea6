"""git smart HTTP for the fake GitHub (a FAKE, for tests only): runs Debian's `git http-backend`
as a CGI for /OWNER/REPO.git/... so clone, fetch and push really happen against a bare
repository. The request body is streamed to the CGI (chunked bodies from git decoded on the way),
the CGI's answer is streamed back chunked so the connection stays alive."""

import os
import re
import subprocess
import threading

GIT_PATH = re.compile(r"^/(?P<owner>[^/]+)/(?P<repo>[^/]+?)(?:\.git)?"
                      r"(?P<rest>/(?:info/refs|git-upload-pack|git-receive-pack|HEAD|objects/.*))$")
BACKEND = "/usr/lib/git-core/git-http-backend"


def match(path):
    return GIT_PATH.match(path)


def wants_push(rest, query):
    return rest == "/git-receive-pack" or "service=git-receive-pack" in query


def body_chunks(handler):
    """The request body as it arrives: Content-Length bytes, or the chunks of a chunked body."""
    if "chunked" in (handler.headers.get("transfer-encoding") or "").lower():
        while True:
            size = int(handler.rfile.readline().split(b";")[0].strip() or b"0", 16)
            if size == 0:
                while handler.rfile.readline() not in (b"\r\n", b"\n", b""):
                    pass  # trailers
                return
            yield handler.rfile.read(size)
            handler.rfile.readline()
    n = int(handler.headers.get("content-length") or 0)
    while n > 0:
        part = handler.rfile.read(min(n, 65536))
        if not part:
            return
        n -= len(part)
        yield part


def serve(handler, state, m, login, query):
    """Runs git http-backend for this request and streams its answer. Returns the status."""
    bare_root = os.path.join(state.root, "repos")
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "GIT_PROJECT_ROOT": bare_root,
           "GIT_HTTP_EXPORT_ALL": "1",
           "PATH_INFO": f"/{m['owner']}/{m['repo']}.git{m['rest']}",
           "REQUEST_METHOD": handler.command, "QUERY_STRING": query,
           "CONTENT_TYPE": handler.headers.get("content-type") or "",
           "REMOTE_ADDR": handler.client_address[0], "GATEWAY_INTERFACE": "CGI/1.1",
           "SERVER_PROTOCOL": "HTTP/1.1", "HOME": state.root}
    if login:
        env["REMOTE_USER"] = login
    if handler.headers.get("content-encoding"):
        env["HTTP_CONTENT_ENCODING"] = handler.headers["content-encoding"]
    if handler.headers.get("git-protocol"):
        env["GIT_PROTOCOL"] = handler.headers["git-protocol"]
    if handler.headers.get("content-length") and "chunked" not in (
            handler.headers.get("transfer-encoding") or "").lower():
        env["CONTENT_LENGTH"] = handler.headers["content-length"]
    proc = subprocess.Popen([BACKEND], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE)

    def feed():  # reads the whole body even when the CGI stops early: the connection lives on
        alive = True
        for part in body_chunks(handler):
            try:
                if alive:
                    proc.stdin.write(part)
            except OSError:
                alive = False
        try:
            proc.stdin.close()
        except OSError:
            pass

    writer = threading.Thread(target=feed, daemon=True)
    writer.start()
    errors = []
    reader = threading.Thread(target=lambda: errors.append(proc.stderr.read()), daemon=True)
    reader.start()
    status, headers = 200, []
    while True:
        line = proc.stdout.readline().decode("latin-1").rstrip("\r\n")
        if not line:
            break
        key, _, value = line.partition(":")
        if key.lower() == "status":
            status = int(value.strip().split()[0])
        else:
            headers.append((key, value.strip()))
    handler.send_response(status)
    for k, v in headers:
        handler.send_header(k, v)
    handler.send_header("Transfer-Encoding", "chunked")
    handler.end_headers()
    while True:
        part = proc.stdout.read1(65536)
        if not part:
            break
        handler.wfile.write(b"%x\r\n%s\r\n" % (len(part), part))
    handler.wfile.write(b"0\r\n\r\n")
    handler.wfile.flush()
    writer.join()
    proc.wait()
    reader.join()
    if proc.returncode != 0 and os.environ.get("AW_FAKE_VERBOSE"):
        print("fake_github: git http-backend:", b"".join(errors).decode(errors="replace"))
    return status
