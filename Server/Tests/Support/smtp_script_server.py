"""An SMTP server that answers by a script, for the tests of what the sender does with each answer.

    python3 smtp_script_server.py MODE   (prints the port it listens on, then serves until killed)

MODE: refuse-sender (554 to MAIL FROM: the relay's problem, retried), refuse-recipient (550 to RCPT TO: that
recipient's problem, permanent), silent-after-ehlo (never answers MAIL FROM: the command timeout).
"""
import os
import socket
import sys
import threading

MODE = sys.argv[1]


def serve(connection):
    with connection:
        reader = connection.makefile("rb")
        connection.sendall(b"220 script ESMTP\r\n")
        for raw in reader:
            line = raw.decode("ascii", "replace").strip().upper()
            if line.startswith("EHLO"):
                connection.sendall(b"250-script\r\n250 8BITMIME\r\n")
            elif line.startswith("MAIL FROM"):
                if MODE == "silent-after-ehlo":
                    threading.Event().wait(120)
                    return
                connection.sendall(b"554 5.7.1 relay access denied\r\n" if MODE == "refuse-sender" else b"250 ok\r\n")
            elif line.startswith("RCPT TO"):
                connection.sendall(b"550 5.1.1 no such user\r\n" if MODE == "refuse-recipient" else b"250 ok\r\n")
            elif line.startswith("QUIT"):
                connection.sendall(b"221 bye\r\n")
                return
            else:
                connection.sendall(b"250 ok\r\n")


def exit_with_parent():
    """Ends the server when the test closes its standard input (or dies), and after two minutes at most."""
    sys.stdin.read()
    os._exit(0)


threading.Thread(target=exit_with_parent, daemon=True).start()
threading.Timer(120, lambda: os._exit(0)).start()
listener = socket.socket()
listener.bind(("127.0.0.1", 0))
listener.listen(16)
print(listener.getsockname()[1], flush=True)
while True:
    client, _ = listener.accept()
    threading.Thread(target=serve, args=(client,), daemon=True).start()
