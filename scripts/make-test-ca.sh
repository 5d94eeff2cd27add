#!/usr/bin/env bash
# Regenerates tests/fixtures/tls: a throwaway CA and a certificate for 127.0.0.1/localhost,
# and other-ca.pem, a second CA that signed nothing here (its key is not kept): what a client
# trusting the wrong CA holds.
set -euo pipefail
cd "$(dirname "$0")/../tests/fixtures/tls"
openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.pem -days 36500 -subj "/CN=batlehub test CA (tests only)"
openssl req -newkey rsa:2048 -nodes -keyout server.key -out server.csr -subj "/CN=127.0.0.1"
printf "subjectAltName=IP:127.0.0.1,DNS:localhost\nbasicConstraints=CA:FALSE\n" > ext.cnf
openssl x509 -req -in server.csr -CA ca.pem -CAkey ca.key -CAcreateserial -out server.pem -days 36500 -extfile ext.cnf
openssl req -x509 -newkey rsa:2048 -nodes -keyout other-ca.key -out other-ca.pem -days 36500 -subj "/CN=batlehub other test CA (tests only)"
rm -f server.csr ext.cnf ca.srl other-ca.key
