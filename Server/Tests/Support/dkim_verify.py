#!/usr/bin/env python3
"""Verifies a message's DKIM signature with dkimpy (PyPI), a verifier nobody on the project wrote; the DNS lookup
of SELECTOR._domainkey.DOMAIN is answered with the record given on the command line.

Usage: dkim_verify.py MESSAGE_FILE 'v=DKIM1; k=rsa; p=...'
Exit 0 when the signature verifies, 1 when it does not, 3 when dkimpy is not installed.
"""
import sys

try:
    import dkim
    import nacl  # dkimpy's ed25519
except ImportError:
    print("dkimpy or pynacl is not installed (pip install dkimpy pynacl)")
    sys.exit(3)

message = open(sys.argv[1], "rb").read()
record = sys.argv[2].encode()


def dns(name, timeout=5):
    return record


verified = dkim.verify(message, dnsfunc=dns)
print("verified" if verified else "not verified")
sys.exit(0 if verified else 1)
