#!/usr/bin/env python3
"""A real SMTP server (aiosmtpd) with TLS and AUTH, for the SMTP transport's tests.

Usage: smtp_tls_server.py FOLDER
Makes a self-signed certificate for localhost in FOLDER (cert.pem, key.pem), then serves on loopback:
  - STARTTLS required, AUTH (PLAIN, LOGIN) required, only over TLS;
  - implicit TLS (smtps), AUTH required.
Accepted messages go to the maildir FOLDER/mailbox. Prints one line, "ports STARTTLS SMTPS", once ready,
and runs until stdin closes. The only account is mailer / "s3cret pass".
"""
import os
import socket
import ssl
import subprocess
import sys
import time

from aiosmtpd.controller import Controller
from aiosmtpd.handlers import Mailbox
from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword

folder = sys.argv[1]
cert, key = os.path.join(folder, "cert.pem"), os.path.join(folder, "key.pem")
subprocess.run(
    ["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=localhost",
     "-addext", "subjectAltName=DNS:localhost", "-keyout", key, "-out", cert],
    check=True, capture_output=True,
)
context = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
context.load_cert_chain(cert, key)


def authenticator(server, session, envelope, mechanism, auth_data):
    ok = isinstance(auth_data, LoginPassword) and auth_data.login == b"mailer" and auth_data.password == b"s3cret pass"
    # handled=False: aiosmtpd answers 535 itself (with the default, it would answer nothing).
    return AuthResult(success=ok, handled=False)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


handler = Mailbox(os.path.join(folder, "mailbox"))
starttls_port, smtps_port = free_port(), free_port()
starttls = Controller(handler, hostname="127.0.0.1", port=starttls_port, tls_context=context, require_starttls=True,
                      authenticator=authenticator, auth_required=True, auth_require_tls=True)
smtps = Controller(handler, hostname="127.0.0.1", port=smtps_port, ssl_context=context,
                   authenticator=authenticator, auth_required=True, auth_require_tls=False)
starttls.start()
smtps.start()
print(f"ports {starttls_port} {smtps_port}", flush=True)
sys.stdin.read()
starttls.stop()
smtps.stop()
