#!/usr/bin/env python3
"""A small HTTP(S) peer for the agent's transport tests.

  GET  /f/NAME              the file, with its Content-Length
  GET  /long/NAME?extra=N   the file plus N bytes, Content-Length covering all of it
  GET  /nolen/NAME?extra=N  the file plus N bytes, no Content-Length (ends at close)
  GET  /chunked/NAME        the file, chunked
  GET  /redirect/NAME       302 to /f/NAME (the agent must not follow)
  PUT  /put/NAME            requires Content-Length, refuses chunked; stores the body as
                            NAME and the request headers as NAME.headers
  PUT  /deny/NAME           403
  POST /form/NAME           a multipart/form-data form (what a post+ result URL sends): requires
                            Content-Length, refuses chunked; stores the part named "file" as
                            NAME, every other part as "name=value" lines in NAME.fields, in
                            the order sent, and the request headers as NAME.headers
  GET or PUT /busy/K/NAME   the first K requests for it answer 503 (S3's SlowDown), then as
                            /f/ or /put/ do
  GET or PUT /drop/K/NAME   the first K requests for it are dropped: the connection closed
                            with no answer, then as /f/ or /put/ do
  GET or PUT /gone/K/NAME   the first K requests answer 404, then as /f/ or /put/ do

Every request under /busy/, /drop/ and /gone/ is counted in NAME.attempts.

Listens on --bind (127.0.0.1 unless told; always a loopback address) and writes the port
it bound to into --port-file once it is listening.
"""
import argparse
import http.server
import os
import socket
import ssl
import sys
import threading
import urllib.parse


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--port-file", required=True)
    ap.add_argument("--cert")
    ap.add_argument("--key")
    ap.add_argument("--bind", default="127.0.0.1")
    ap.add_argument("--tls13-only", action="store_true", help="refuse TLS 1.2 (the agent speaks only 1.2)")
    args = ap.parse_args()
    root = os.path.abspath(args.dir)
    attempts = {}
    lock = threading.Lock()

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _file(self, name):
            with open(os.path.join(root, os.path.basename(name)), "rb") as f:
                return f.read()

        def _faulty(self):
            """Answers a /busy/, /drop/ or /gone/ request while it is still to fail, and says so;
            else rewrites self.path to the /f/ or /put/ it stands for."""
            u = urllib.parse.urlsplit(self.path)
            parts = u.path.split("/", 3)
            if len(parts) < 4 or parts[1] not in ("busy", "drop", "gone"):
                return False
            kind, k, name = parts[1], int(parts[2]), os.path.basename(parts[3])
            with lock:
                n = attempts[u.path] = attempts.get(u.path, 0) + 1
                with open(os.path.join(root, name + ".attempts"), "w") as f:
                    f.write(str(n))
            if n > k:
                self.path = ("/f/" if self.command == "GET" else "/put/") + name + ("?" + u.query if u.query else "")
                return False
            if self.command == "PUT":
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
            if kind == "drop":
                self.close_connection = True
                self.connection.shutdown(socket.SHUT_RDWR)
            elif kind == "busy":
                self.send_error(503, "SlowDown")
            else:
                self.send_error(404)
            return True

        def do_GET(self):
            if self._faulty():
                return
            u = urllib.parse.urlsplit(self.path)
            q = urllib.parse.parse_qs(u.query)
            parts = u.path.split("/", 2)
            if len(parts) < 3:
                self.send_error(404)
                return
            kind, name = parts[1], parts[2]
            try:
                body = self._file(name)
            except OSError:
                self.send_error(404)
                return
            extra = b"X" * int(q.get("extra", ["0"])[0])
            if kind == "f":
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)
            elif kind == "long":
                self.send_response(200)
                self.send_header("Content-Length", str(len(body) + len(extra)))
                self.end_headers()
                self.wfile.write(body + extra)
            elif kind == "nolen":
                self.send_response(200)
                self.send_header("Connection", "close")
                self.end_headers()
                self.wfile.write(body + extra)
                self.close_connection = True
            elif kind == "chunked":
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                for i in range(0, len(body), 1000):
                    c = body[i:i + 1000]
                    self.wfile.write(b"%x\r\n" % len(c) + c + b"\r\n")
                self.wfile.write(b"0\r\n\r\n")
            elif kind == "redirect":
                self.send_response(302)
                self.send_header("Location", "/f/" + name)
                self.send_header("Content-Length", "0")
                self.end_headers()
            else:
                self.send_error(404)

        def _body(self):
            """An upload's body, read by its Content-Length; None (answered) for a chunked one or one without."""
            if self.headers.get("Transfer-Encoding"):
                self.send_error(400, "chunked uploads are refused")
                return None
            if self.headers.get("Content-Length") is None:
                self.send_error(411)
                return None
            return self.rfile.read(int(self.headers["Content-Length"]))

        def do_PUT(self):
            if self._faulty():
                return
            parts = self.path.split("?")[0].split("/", 2)
            if len(parts) < 3:
                self.send_error(404)
                return
            kind, name = parts[1], os.path.basename(parts[2])
            body = self._body()
            if body is None:
                return
            if kind == "deny":
                self.send_error(403)
                return
            with open(os.path.join(root, name), "wb") as f:
                f.write(body)
            with open(os.path.join(root, name + ".headers"), "w") as f:
                for k, v in self.headers.items():
                    f.write("%s: %s\n" % (k, v))
            self.send_response(200)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def do_POST(self):
            parts = self.path.split("?")[0].split("/", 2)
            if len(parts) < 3 or parts[1] != "form":
                self.send_error(404)
                return
            name = os.path.basename(parts[2])
            body = self._body()
            if body is None:
                return
            ctype = self.headers.get("Content-Type", "")
            prefix = "multipart/form-data; boundary="
            if not ctype.startswith(prefix):
                self.send_error(400, "not multipart/form-data")
                return
            dash = b"--" + ctype[len(prefix):].encode()
            if not body.startswith(dash) or not body.endswith(b"\r\n" + dash + b"--\r\n"):
                self.send_error(400, "the body does not open and close with its boundary")
                return
            fields, file = [], None
            for part in body[len(dash):-len(dash) - 6].split(b"\r\n" + dash):
                if not part.startswith(b"\r\n"):
                    self.send_error(400, "a part that does not start on its own line")
                    return
                head, _, content = part[2:].partition(b"\r\n\r\n")
                disposition = [h for h in head.split(b"\r\n") if h.lower().startswith(b"content-disposition:")]
                if len(disposition) != 1 or b' name="' not in disposition[0]:
                    self.send_error(400, "a part without its name")
                    return
                field = disposition[0].split(b' name="', 1)[1].split(b'"', 1)[0].decode()
                if field == "file":
                    file = content
                else:
                    fields.append("%s=%s" % (field, content.decode()))
            if file is None:
                self.send_error(400, "no file part")
                return
            with open(os.path.join(root, name), "wb") as f:
                f.write(file)
            with open(os.path.join(root, name + ".fields"), "w") as f:
                f.write("".join(line + "\n" for line in fields))
            with open(os.path.join(root, name + ".headers"), "w") as f:
                for k, v in self.headers.items():
                    f.write("%s: %s\n" % (k, v))
            self.send_response(204)
            self.end_headers()

    srv = http.server.ThreadingHTTPServer((args.bind, 0), Handler)
    if args.cert:
        ctx = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        ctx.load_cert_chain(args.cert, args.key)
        if args.tls13_only:
            ctx.minimum_version = ssl.TLSVersion.TLSv1_3
        srv.socket = ctx.wrap_socket(srv.socket, server_side=True)
    tmp = args.port_file + ".tmp"
    with open(tmp, "w") as f:
        f.write(str(srv.server_address[1]))
    os.rename(tmp, args.port_file)
    try:
        srv.serve_forever()
    except KeyboardInterrupt:
        pass
    return 0


if __name__ == "__main__":
    sys.exit(main())
