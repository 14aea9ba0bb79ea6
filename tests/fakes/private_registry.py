#!/usr/bin/env python3
"""A TEST SERVER, for the egress proxy's injection tests with real clients (issue 27): a private
package host over TLS (a certificate the test makes) that answers only requests carrying the right
Basic credentials, and serves

  /git/NAME.git/...   a real `git http-backend` (CGI) over a bare repository made at start, whose
                      one commit holds README with "private dependency ok"
  /simple/...         a PEP 503 simple index with one pure-Python wheel made at start; with
                      --redirect-host HOST, a wheel's URL answers 302 to
                      https://HOST:PORT/files/... (a registry sending downloads to a CDN)
  /files/...          the index's files WITHOUT auth (the CDN's side of that redirect)
  anything else       404

Every request but /files/ is 401 without "Authorization: Basic base64(USER:PASSWORD)". Each
request is logged as a JSON line to --log (method, path, the Authorization header as received, the
status), so that the test can see what the proxy sent. Prints its port on the first line when
ready.

Not a registry implementation: just enough of the two protocols for `git clone` and
`pip download`, with HTTP/1.1 keep-alive and a Content-Length on every answer.
"""
import argparse
import base64
import hashlib
import http.server
import json
import os
import ssl
import subprocess
import sys
import threading
import zipfile


def make_git_repo(root, name):
    """A bare repository root/NAME.git with one commit, made with the real git."""
    work = os.path.join(root, name + '-work')
    bare = os.path.join(root, name + '.git')
    env = dict(os.environ, GIT_AUTHOR_NAME='Test', GIT_AUTHOR_EMAIL='test@example.test',
               GIT_COMMITTER_NAME='Test', GIT_COMMITTER_EMAIL='test@example.test',
               GIT_CONFIG_NOSYSTEM='1', HOME=root)
    subprocess.run(['git', 'init', '-q', '-b', 'main', work], check=True, env=env)
    with open(os.path.join(work, 'README'), 'w') as f:
        f.write('private dependency ok\n')
    subprocess.run(['git', '-C', work, 'add', 'README'], check=True, env=env)
    subprocess.run(['git', '-C', work, 'commit', '-q', '-m', 'private dependency'], check=True,
                   env=env)
    subprocess.run(['git', 'clone', '-q', '--bare', work, bare], check=True, env=env)


def make_simple_index(root, spec):
    """root/simple/NAME/index.html linking NAME-VERSION-py3-none-any.whl (a valid wheel)."""
    name, version = spec.split('==')
    dist = name.replace('-', '_')
    folder = os.path.join(root, 'simple', name)
    os.makedirs(folder, exist_ok=True)
    wheel = '%s-%s-py3-none-any.whl' % (dist, version)
    info = '%s-%s.dist-info' % (dist, version)
    files = {
        dist + '/__init__.py': 'OK = "private package ok"\n',
        info + '/METADATA': 'Metadata-Version: 2.1\nName: %s\nVersion: %s\n' % (name, version),
        info + '/WHEEL': 'Wheel-Version: 1.0\nGenerator: awaywork-test\nRoot-Is-Purelib: true\n'
                         'Tag: py3-none-any\n',
    }
    record = ''
    for path, text in files.items():
        digest = base64.urlsafe_b64encode(hashlib.sha256(text.encode()).digest()).rstrip(b'=')
        record += '%s,sha256=%s,%d\n' % (path, digest.decode(), len(text.encode()))
    record += info + '/RECORD,,\n'
    files[info + '/RECORD'] = record
    with zipfile.ZipFile(os.path.join(folder, wheel), 'w') as z:
        for path, text in files.items():
            z.writestr(path, text)
    with open(os.path.join(folder, wheel), 'rb') as f:
        sha = hashlib.sha256(f.read()).hexdigest()
    with open(os.path.join(folder, 'index.html'), 'w') as f:
        f.write('<!DOCTYPE html><html><body><a href="%s#sha256=%s">%s</a></body></html>\n' %
                (wheel, sha, wheel))
    with open(os.path.join(root, 'simple', 'index.html'), 'w') as f:
        f.write('<!DOCTYPE html><html><body><a href="%s/">%s</a></body></html>\n' % (name, name))


class Handler(http.server.BaseHTTPRequestHandler):
    protocol_version = 'HTTP/1.1'
    server_version = 'awaywork-test-registry'

    def log_message(self, *args):
        pass

    def body(self):
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            out = b''
            while True:
                size = int(self.rfile.readline().split(b';')[0].strip(), 16)
                if size == 0:
                    while self.rfile.readline() not in (b'\r\n', b'\n', b''):
                        pass
                    return out
                out += self.rfile.read(size)
                self.rfile.readline()
        return self.rfile.read(int(self.headers.get('Content-Length') or 0))

    def answer(self, status, headers, payload):
        # Logged before the answer is sent: once the client has its answer, the line is there.
        auth = self.headers.get('Authorization', '')
        with self.server.log_lock:
            with open(self.server.args.log, 'a') as f:
                f.write(json.dumps({'method': self.command, 'path': self.path,
                                    'authorization': auth, 'status': status}) + '\n')
        self.send_response(status)
        for k, v in headers:
            self.send_header(k, v)
        self.send_header('Content-Length', str(len(payload)))
        self.end_headers()
        if self.command != 'HEAD':
            self.wfile.write(payload)

    def handle_any(self):
        data = self.body()
        a = self.server.args
        path, _, query = self.path.partition('?')
        if path.startswith('/files/') and '..' not in path:
            self.static('/simple/' + path[len('/files/'):])
            return
        want = 'Basic ' + base64.b64encode(('%s:%s' % (a.user, a.password)).encode()).decode()
        if self.headers.get('Authorization', '') != want:
            self.answer(401, [('WWW-Authenticate', 'Basic realm="private"'),
                              ('Content-Type', 'text/plain')], b'unauthorized\n')
            return
        if path.startswith('/git/'):
            self.git(path[len('/git'):], query, data)
        elif a.redirect_host and path.startswith('/simple/') and path.endswith('.whl'):
            location = 'https://%s:%d/files/%s' % (a.redirect_host, self.server.server_address[1],
                                                   path[len('/simple/'):])
            self.answer(302, [('Location', location)], b'')
        elif path.startswith('/simple/') and '..' not in path:
            self.static(path)
        else:
            self.answer(404, [('Content-Type', 'text/plain')], b'not found\n')

    def git(self, path_info, query, data):
        env = {'PATH': os.environ.get('PATH', '/usr/bin:/bin'),
               'GIT_PROJECT_ROOT': self.server.args.root, 'GIT_HTTP_EXPORT_ALL': '1',
               'GIT_CONFIG_NOSYSTEM': '1', 'HOME': self.server.args.root,
               'REQUEST_METHOD': self.command, 'PATH_INFO': path_info, 'QUERY_STRING': query,
               'CONTENT_TYPE': self.headers.get('Content-Type', ''),
               'CONTENT_LENGTH': str(len(data)), 'REMOTE_USER': self.server.args.user,
               'REMOTE_ADDR': '127.0.0.1', 'GATEWAY_INTERFACE': 'CGI/1.1',
               'SERVER_PROTOCOL': 'HTTP/1.1'}
        for k, v in self.headers.items():
            if k.lower() not in ('content-type', 'content-length', 'authorization'):
                env['HTTP_' + k.upper().replace('-', '_')] = v
        if self.headers.get('Transfer-Encoding', '').lower() == 'chunked':
            env.pop('HTTP_TRANSFER_ENCODING', None)
        r = subprocess.run(['git', 'http-backend'], input=data, env=env, capture_output=True)
        head, sep, payload = r.stdout.partition(b'\r\n\r\n')
        if not sep:
            head, sep, payload = r.stdout.partition(b'\n\n')
        status, headers = 200, []
        for line in head.decode('latin-1').splitlines():
            k, _, v = line.partition(':')
            if k.lower() == 'status':
                status = int(v.strip().split()[0])
            elif k and k.lower() != 'content-length':
                headers.append((k, v.strip()))
        if r.returncode != 0 and not sep:
            status, headers, payload = 500, [('Content-Type', 'text/plain')], r.stderr
        self.answer(status, headers, payload)

    def static(self, path):
        full = os.path.join(self.server.args.root, path.lstrip('/'))
        if os.path.isdir(full):
            full = os.path.join(full, 'index.html')
        try:
            with open(full, 'rb') as f:
                payload = f.read()
        except OSError:
            self.answer(404, [('Content-Type', 'text/plain')], b'not found\n')
            return
        kind = 'text/html' if full.endswith('.html') else 'application/octet-stream'
        self.answer(200, [('Content-Type', kind)], payload)

    do_GET = do_POST = do_HEAD = handle_any


def main():
    p = argparse.ArgumentParser()
    p.add_argument('--root', required=True)
    p.add_argument('--cert', required=True)
    p.add_argument('--key', required=True)
    p.add_argument('--user', required=True)
    p.add_argument('--password', required=True)
    p.add_argument('--log', required=True)
    p.add_argument('--git-repo', action='append', default=[])
    p.add_argument('--wheel', action='append', default=[], help='NAME==VERSION')
    p.add_argument('--redirect-host', default='')
    p.add_argument('--port', type=int, default=0)
    args = p.parse_args()
    os.makedirs(args.root, exist_ok=True)
    for name in args.git_repo:
        make_git_repo(args.root, name)
    for spec in args.wheel:
        make_simple_index(args.root, spec)
    server = http.server.ThreadingHTTPServer(('127.0.0.1', args.port), Handler)
    server.daemon_threads = True
    server.args = args
    server.log_lock = threading.Lock()
    ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ctx.load_cert_chain(args.cert, args.key)
    server.socket = ctx.wrap_socket(server.socket, server_side=True)
    print(server.server_address[1], flush=True)
    server.serve_forever()


if __name__ == '__main__':
    sys.exit(main())
