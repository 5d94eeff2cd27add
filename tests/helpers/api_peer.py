#!/usr/bin/env python3
"""A scripted HTTP(S) API peer on loopback, for the tests of everything that speaks to an
API through the worker's HTTP client (adapters/http/http_client.h): the client itself, and
the network scanners (OSV, Socket, Rekor, mlab…). A test writes down what the API answers;
the peer answers exactly that and logs what it was asked. tests/helpers/api_peer.h starts
it from C++ (batlehub::testing::ApiPeer).

    api_peer.py --port-file F --routes R [--log L] [--cert C --key K] [--bind 127.0.0.1]

  --port-file F  the port, written (atomically) once the peer listens; it binds port 0
  --bind A       a 127.0.0.0/8 address (127.0.0.1 unless told); anything else is refused
  --cert/--key   PEM certificate and key: HTTPS when given (tests/fixtures/tls/server.pem
                 is for 127.0.0.1 and localhost, signed by tests/fixtures/tls/ca.pem)
  --routes R     the script, JSON, read again at every request: a test may change it
                 between two calls (a missing file is an empty script)
  --log L        one JSON line appended per request, before it is answered:
                 {"method": "POST", "path": "/v1/querybatch" (no query), "query": "a=1&b=2"
                  (raw, "" when none), "headers": {lower-cased name: value, repeats joined
                  with ", "}, "body": base64 of the request body (Content-Length or chunked)}

The script: a list of routes, or {"generation": N, "routes": [...]}.

  [{"method": "POST", "path": "/v1/querybatch", "replies": [REPLY, REPLY, ...]}, ...]

A route matches a request's method ("*" = any) and path exactly (no query; a path ending in
"*" matches by prefix), and, when it has "query", the raw query too. The first route that
matches answers. Its replies are served in turn — the first request gets the first reply,
the second the second, and the last one repeats for ever after. The peer keeps that
counter per route; it starts over whenever the routes file's bytes change (the C++ wrapper
writes a new "generation" each time it scripts, so the same script twice starts over too).
A request no route matches is answered 404 {"code":5,"message":"no route in the test's script"}.

REPLY (every key optional):
  "status": 200
  "headers": {"Content-Type": "application/json"} or [["Name", "value"], ...] (repeats kept);
             a Content-Length given here is sent as given (a lie, if the test wants one)
  "body": "text" (UTF-8) | "body_b64": "..." (bytes)
  "repeat": N        the body N times (an oversized answer without a test holding it)
  "chunked": true    Transfer-Encoding: chunked instead of Content-Length
  "delay_ms": N      sleep N ms before answering (a timeout)
  "truncate": true   declare Content-Length twice the body, send the body, close (a cut answer)
  "hangup": true     close the connection without answering at all (a server that died)

Python 3's standard library only.
"""
import argparse
import base64
import hashlib
import http.server
import ipaddress
import json
import os
import socket
import ssl
import sys
import threading
import time
import urllib.parse

NO_ROUTE = json.dumps({"code": 5, "message": "no route in the test's script"}).encode()


class Script:
    """The routes file and the per-route counters, under one lock."""

    def __init__(self, path):
        self.path = path
        self.lock = threading.Lock()
        self.digest = None
        self.counters = {}

    def reply_for(self, method, path, query):
        with self.lock:
            try:
                with open(self.path, "rb") as f:
                    raw = f.read()
            except FileNotFoundError:
                raw = b"[]"
            digest = hashlib.sha256(raw).hexdigest()
            if digest != self.digest:
                self.digest = digest
                self.counters = {}
            doc = json.loads(raw or b"[]")
            routes = doc.get("routes", []) if isinstance(doc, dict) else doc
            for i, route in enumerate(routes):
                if not matches(route, method, path, query):
                    continue
                replies = route.get("replies") or [{}]
                n = self.counters.get(i, 0)
                self.counters[i] = n + 1
                return replies[min(n, len(replies) - 1)]
        return None


def matches(route, method, path, query):
    want_method = route.get("method", "*")
    if want_method not in ("*", method):
        return False
    want_path = route.get("path", "")
    if want_path.endswith("*"):
        if not path.startswith(want_path[:-1]):
            return False
    elif want_path != path:
        return False
    return "query" not in route or route["query"] == query


def header_list(headers):
    if isinstance(headers, dict):
        return list(headers.items())
    return [(h[0], h[1]) for h in headers or []]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--routes", required=True)
    ap.add_argument("--log")
    args = ap.parse_args()
    try:
        bind = ipaddress.IPv4Address(args.bind)
    except ValueError:
        sys.exit("api_peer: --bind %s is not an IPv4 address" % args.bind)
    if not bind.is_loopback:
        sys.exit("api_peer: --bind %s is not a loopback address (127.0.0.0/8)" % args.bind)
    if bool(args.cert) != bool(args.key):
        sys.exit("api_peer: --cert and --key go together")

    tls = None
    if args.cert:
        tls = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        tls.load_cert_chain(args.cert, args.key)
    script = Script(args.routes)
    log_lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def setup(self):
            # The handshake in this connection's own thread: a client that stalls or refuses
            # the certificate holds up no one else.
            if tls is not None:
                self.request.settimeout(30)
                self.request = tls.wrap_socket(self.request, server_side=True)
            super().setup()

        def read_body(self):
            if "chunked" in self.headers.get("Transfer-Encoding", "").lower():
                out = bytearray()
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return bytes(out)
                    out += self.rfile.read(size)
                    self.rfile.readline()
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length > 0 else b""

        def log_request_line(self, path, query, body):
            if not args.log:
                return
            headers = {}
            for name, value in self.headers.items():
                name = name.lower()
                headers[name] = headers[name] + ", " + value if name in headers else value
            line = json.dumps({"method": self.command, "path": path, "query": query, "headers": headers,
                               "body": base64.b64encode(body).decode()})
            with log_lock:
                with open(args.log, "a") as f:
                    f.write(line + "\n")

        def answer(self):
            split = urllib.parse.urlsplit(self.path)
            path, query = split.path, split.query
            body = self.read_body()
            self.log_request_line(path, query, body)
            reply = script.reply_for(self.command, path, query)
            if reply is None:
                reply = {"status": 404, "headers": {"Content-Type": "application/json"},
                         "body_b64": base64.b64encode(NO_ROUTE).decode()}
            if reply.get("delay_ms"):
                time.sleep(reply["delay_ms"] / 1000.0)
            if reply.get("hangup"):
                self.close_connection = True
                self.hang_up()
                return
            if "body_b64" in reply:
                piece = base64.b64decode(reply["body_b64"])
            else:
                piece = reply.get("body", "").encode()
            repeat = int(reply.get("repeat", 1))
            total = len(piece) * repeat
            chunked = bool(reply.get("chunked"))
            truncate = bool(reply.get("truncate"))
            given = header_list(reply.get("headers"))
            self.send_response(int(reply.get("status", 200)))
            for name, value in given:
                self.send_header(name, str(value))
            names = {n.lower() for n, _ in given}
            if chunked:
                self.send_header("Transfer-Encoding", "chunked")
            elif "content-length" not in names:
                self.send_header("Content-Length", str(2 * total if truncate else total))
            if truncate:
                self.send_header("Connection", "close")
            self.end_headers()
            if self.command != "HEAD":
                # In pieces of about 64 KiB, so that a large answer is never held whole.
                per = max(1, (64 * 1024) // max(1, len(piece)))
                left = repeat
                while left > 0 and piece:
                    n = min(per, left)
                    data = piece * n
                    left -= n
                    if chunked:
                        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
                    else:
                        self.wfile.write(data)
                if chunked:
                    self.wfile.write(b"0\r\n\r\n")
            self.wfile.flush()
            if truncate:
                self.close_connection = True
                self.hang_up()

        def hang_up(self):
            try:
                self.wfile.flush()
            except OSError:
                pass
            try:
                self.connection.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass

        def handle_one_request(self):
            try:
                super().handle_one_request()
            except (OSError, ValueError):
                # The client went away (it timed out, refused the answer's size…): nothing
                # left to answer.
                self.close_connection = True

        do_GET = do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = answer

    class Server(http.server.ThreadingHTTPServer):
        daemon_threads = True

        def handle_error(self, request, client_address):
            pass  # a refused handshake or a client that left: not the peer's failure

    server = Server((str(bind), 0), Handler)
    port = server.server_address[1]
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(port))
    os.rename(tmp, args.port_file)
    server.serve_forever()


if __name__ == "__main__":
    main()
