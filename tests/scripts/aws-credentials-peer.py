#!/usr/bin/env python3
"""A stand-in for the two AWS endpoints the credential chain fetches temporary keys from,
for the tests (src/adapters/storage/aws_credentials.h), on 127.0.0.1 only:

  POST /  (or GET /?...)    STS AssumeRoleWithWebIdentity: Action, Version 2011-06-15,
                            RoleArn (== --role-arn when given), RoleSessionName and
                            WebIdentityToken (== the content of --web-identity-token-file,
                            re-read at every request, as Kubernetes rotates it) -> STS's XML
                            <Credentials>; otherwise STS's <ErrorResponse> (InvalidAction,
                            ValidationError, AccessDenied, InvalidIdentityToken)
  GET  /container/...       the container credentials endpoint: the Authorization header
                            must equal --container-token-file's content (re-read at every
                            request) or --container-token -> {AccessKeyId, SecretAccessKey,
                            Token, Expiration}; otherwise 401 {"code", "message"}
  GET  /stats               what it was asked: {"sts": n, "container": n, "session_names":
                            [...], "authorizations": [...]}, for the refresh tests

The keys it hands out are --access-key and --secret-key (the tests give versitygw's, so
that what it answers signs requests versitygw accepts). A session token is sent only with
--session-token: versitygw 1.8.0 refuses every request that carries an X-Amz-Security-Token
it did not issue (400 InvalidToken, "The provided token is malformed or otherwise
invalid."), so the tests against it leave the token out, and those about the token itself
give one. --expires-in sets Expiration (seconds from now; negative: already expired);
--pad N adds N blanks to each successful answer (a client must refuse one over its bound);
--echo puts what it was sent (the token, the Authorization header) in its refusals, as a
careless proxy might, for the tests that the client never repeats it.

It binds 127.0.0.1 on a free port and prints that port on its first stdout line. With
--exit-on-stdin-eof it ends when its stdin closes, so that a test that dies never leaves it
behind. Standard library only.
"""
import argparse
import datetime
import http.server
import json
import os
import re
import sys
import threading
import urllib.parse
from xml.sax.saxutils import escape

STS_NS = "https://sts.amazonaws.com/doc/2011-06-15/"
SESSION_NAME = re.compile(r"^[\w+=,.@-]{2,64}$")


def read_token(path):
    with open(path, encoding="utf-8") as f:
        return f.read().strip()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--access-key", required=True)
    ap.add_argument("--secret-key", required=True)
    ap.add_argument("--session-token")
    ap.add_argument("--web-identity-token-file")
    ap.add_argument("--role-arn")
    ap.add_argument("--container-token-file")
    ap.add_argument("--container-token")
    ap.add_argument("--expires-in", type=int, default=3600)
    ap.add_argument("--pad", type=int, default=0)
    ap.add_argument("--echo", action="store_true")
    ap.add_argument("--exit-on-stdin-eof", action="store_true")
    args = ap.parse_args()

    lock = threading.Lock()
    stats = {"sts": 0, "container": 0, "session_names": [], "authorizations": []}

    def expiration():
        t = datetime.datetime.now(datetime.timezone.utc) + datetime.timedelta(seconds=args.expires_in)
        return t.strftime("%Y-%m-%dT%H:%M:%SZ")

    class Handler(http.server.BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def log_message(self, *a):
            pass

        def _send(self, status, body, content_type):
            data = body.encode()
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(data)))
            self.end_headers()
            self.wfile.write(data)

        def _sts_error(self, status, code, message):
            self._send(status, f'<ErrorResponse xmlns="{STS_NS}"><Error><Type>Sender</Type><Code>{code}</Code>'
                       f"<Message>{escape(message)}</Message></Error><RequestId>peer</RequestId></ErrorResponse>",
                       "text/xml")

        def _sts(self, form):
            def one(name):
                v = form.get(name)
                return v[0] if v else None

            with lock:
                stats["sts"] += 1
                stats["session_names"].append(one("RoleSessionName"))
            if one("Action") != "AssumeRoleWithWebIdentity" or one("Version") != "2011-06-15":
                return self._sts_error(400, "InvalidAction", "only AssumeRoleWithWebIdentity, version 2011-06-15")
            name = one("RoleSessionName")
            if name is None or not SESSION_NAME.match(name):
                return self._sts_error(400, "ValidationError", "RoleSessionName must be 2 to 64 of [\\w+=,.@-]")
            if one("RoleArn") is None or (args.role_arn is not None and one("RoleArn") != args.role_arn):
                return self._sts_error(403, "AccessDenied", "Not authorized to perform sts:AssumeRoleWithWebIdentity")
            want = read_token(args.web_identity_token_file) if args.web_identity_token_file else None
            if want is None or one("WebIdentityToken") != want:
                said = f" (got {one('WebIdentityToken')})" if args.echo else ""
                return self._sts_error(400, "InvalidIdentityToken", "the web identity token is not the one expected" + said)
            token = f"<SessionToken>{escape(args.session_token)}</SessionToken>" if args.session_token else ""
            self._send(200, f'<AssumeRoleWithWebIdentityResponse xmlns="{STS_NS}">'
                       "<AssumeRoleWithWebIdentityResult>"
                       "<SubjectFromWebIdentityToken>system:serviceaccount:batlehub:worker</SubjectFromWebIdentityToken>"
                       f"<AssumedRoleUser><Arn>{escape(one('RoleArn'))}/{escape(name)}</Arn>"
                       "<AssumedRoleId>AROAPEER:peer</AssumedRoleId></AssumedRoleUser>"
                       f"<Credentials><AccessKeyId>{escape(args.access_key)}</AccessKeyId>"
                       f"<SecretAccessKey>{escape(args.secret_key)}</SecretAccessKey>{token}"
                       f"<Expiration>{expiration()}</Expiration></Credentials>"
                       "<Audience>sts.amazonaws.com</Audience></AssumeRoleWithWebIdentityResult>"
                       "<ResponseMetadata><RequestId>peer</RequestId></ResponseMetadata>"
                       "</AssumeRoleWithWebIdentityResponse>" + " " * args.pad, "text/xml")

        def _container(self):
            got = self.headers.get("Authorization")
            with lock:
                stats["container"] += 1
                stats["authorizations"].append(got)
            want = args.container_token
            if args.container_token_file:
                want = read_token(args.container_token_file)
            if want is not None and got != want:
                said = f" (got {got})" if args.echo else ""
                return self._send(401, json.dumps({"code": "AccessDenied",
                                                   "message": "the Authorization header is not the one expected" + said}),
                                  "application/json")
            body = {"AccessKeyId": args.access_key, "SecretAccessKey": args.secret_key,
                    "Expiration": expiration(), "RoleArn": "arn:aws:iam::000000000000:role/peer"}
            if args.session_token:
                body["Token"] = args.session_token
            self._send(200, json.dumps(body) + " " * args.pad, "application/json")

        def do_GET(self):
            u = urllib.parse.urlsplit(self.path)
            if u.path == "/stats":
                with lock:
                    return self._send(200, json.dumps(stats), "application/json")
            if u.path.startswith("/container/"):
                return self._container()
            if u.path == "/" and u.query:
                return self._sts(urllib.parse.parse_qs(u.query, keep_blank_values=True))
            self._send(404, "not here\n", "text/plain")

        def do_POST(self):
            length = int(self.headers.get("Content-Length", "0"))
            body = self.rfile.read(length).decode("utf-8", "replace") if length > 0 else ""
            if urllib.parse.urlsplit(self.path).path != "/":
                return self._send(404, "not here\n", "text/plain")
            self._sts(urllib.parse.parse_qs(body, keep_blank_values=True))

    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    server.daemon_threads = True
    print(server.server_address[1], flush=True)
    if args.exit_on_stdin_eof:
        def watch():
            sys.stdin.read()
            os._exit(0)

        threading.Thread(target=watch, daemon=True).start()
    server.serve_forever()


if __name__ == "__main__":
    main()
