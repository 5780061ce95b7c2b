#!/usr/bin/env python3
"""An app team's existing backend that keeps its own users and uses swift-deeplinks for password reset.

Python's standard library only: its own SQLite users table, its own password hashing (PBKDF2-SHA256) and
sessions. It implements what external accounts ask of a backend (see the DeepLinksServer article "Use your
own accounts"):

- the two hooks the server calls, each signed (`Deeplinks-Signature: t=...,n=...,v2=...`):
  `POST /deeplinks/lookup {"email"}` -> `{"subject"}` or 404, and
  `POST /deeplinks/password {"subject","password","endSessions"}` -> 204, or 422 `{"reasons":[...]}`;
- the backend-initiated way in: `POST /forgot {"email"}` asks the server for a link (`POST /v1/reset-links`),
  mailed by the server, or with `"deliver": "return"` put in the backend's own mail (a file in OUTBOX);
- the backend's way to confirm: `POST /reset {"token","password"}` consumes the token
  (`POST /v1/reset-links/consume`) and sets the password itself;
- a signed-in password change tells the server to end the user's reset links (`POST /v1/reset-links/revoke`).

Environment: PORT, DATABASE (a SQLite file), DEEPLINKS_URL (the server), DEEPLINKS_ADMIN_KEY,
DEEPLINKS_HOOK_SECRETS (`VERSION:BASE64[,...]`, the server's), OUTBOX (a folder for the backend's own
mail). TEST_CONTROLS=1 adds `POST /_faults` and `GET /_stats` for the journey test; never in production.

    python3 Examples/ExistingBackend/backend.py
"""
import base64
import hashlib
import hmac
import json
import os
import secrets
import sqlite3
import threading
import time
import urllib.error
import urllib.request
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

REPLAY_WINDOW = 300  # seconds either side of our clock
HOOK_SECRETS = [
    base64.b64decode(item.split(":", 1)[1]) for item in os.environ.get("DEEPLINKS_HOOK_SECRETS", "").split(",") if ":" in item
]
DEEPLINKS_URL = os.environ.get("DEEPLINKS_URL", "http://127.0.0.1:8080")
ADMIN_KEY = os.environ.get("DEEPLINKS_ADMIN_KEY", "")
OUTBOX = os.environ.get("OUTBOX", "var/backend-mail")
TEST_CONTROLS = os.environ.get("TEST_CONTROLS") == "1"

lock = threading.Lock()
seen_nonces = {}  # nonce -> time seen, kept for the replay window
faults = {"lookup_failures": 0, "password_down": False, "password_delay": 0.0}
stats = {"lookups": 0, "password_calls": 0, "refused_signatures": 0}
db = sqlite3.connect(os.environ.get("DATABASE", "var/backend.sqlite"), check_same_thread=False)
db.executescript(
    """
    CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, email TEXT UNIQUE NOT NULL, password TEXT NOT NULL);
    CREATE TABLE IF NOT EXISTS sessions (token TEXT PRIMARY KEY, user_id TEXT NOT NULL);
    """
)


def hash_password(password, salt=None):
    salt = salt or secrets.token_bytes(16)
    digest = hashlib.pbkdf2_hmac("sha256", password.encode(), salt, 200_000)
    return base64.b64encode(salt).decode() + "$" + base64.b64encode(digest).decode()


def password_matches(password, stored):
    salt = base64.b64decode(stored.split("$")[0])
    return hmac.compare_digest(hash_password(password, salt), stored)


def verify_signature(header, body, purpose):
    """The server's signature: a timestamp near ours, a nonce never seen, an HMAC under one of our secrets of
    "{t}.{n}.{purpose}.{body}", where the purpose is "hook:NAME" for POST /deeplinks/NAME (so a signature made
    for another hook, or for a webhook, is refused)."""
    fields = {}
    signatures = []
    for part in (header or "").split(","):
        name, _, value = part.partition("=")
        if name == "v2":
            signatures.append(value)
        else:
            fields[name] = value
    try:
        stamp = int(fields["t"])
        nonce = fields["n"]
    except (KeyError, ValueError):
        return False
    now = time.time()
    if abs(now - stamp) > REPLAY_WINDOW:
        return False
    signed = f"{stamp}.{nonce}.{purpose}.".encode() + body
    expected = [hmac.new(secret, signed, hashlib.sha256).hexdigest() for secret in HOOK_SECRETS]
    if not any(hmac.compare_digest(given, wanted) for given in signatures for wanted in expected):
        return False
    with lock:
        for old in [n for n, at in seen_nonces.items() if now - at > 2 * REPLAY_WINDOW]:
            del seen_nonces[old]
        if nonce in seen_nonces:
            return False  # a replay
        seen_nonces[nonce] = now
    return True


def deeplinks(path, payload):
    """Calls the server's API with the admin key: (status, JSON body)."""
    request = urllib.request.Request(DEEPLINKS_URL + path, data=json.dumps(payload).encode(), method="POST")
    request.add_header("Content-Type", "application/json")
    request.add_header("Authorization", "Bearer " + ADMIN_KEY)
    try:
        with urllib.request.urlopen(request, timeout=10) as response:
            text = response.read()
            return response.status, json.loads(text) if text else {}
    except urllib.error.HTTPError as error:
        text = error.read()
        return error.code, json.loads(text) if text else {}


def set_password(user_id, password):
    """Our own rule (at least 8 characters), then the new hash; every session of the user ends. None when
    there is no such user."""
    if len(password) < 8:
        return ["too_short"]
    with lock:
        if not db.execute("UPDATE users SET password = ? WHERE id = ?", (hash_password(password), user_id)).rowcount:
            return None
        db.execute("DELETE FROM sessions WHERE user_id = ?", (user_id,))
        db.commit()
    return []


class Handler(BaseHTTPRequestHandler):
    def answer(self, status, body=None):
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(status)
        if body is not None:
            self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def log_message(self, format, *args):  # never log bodies: they hold passwords
        pass

    def user(self, email):
        with lock:
            return db.execute("SELECT id, email, password FROM users WHERE email = ?", (email.strip().lower(),)).fetchone()

    def session_user(self):
        token = (self.headers.get("Authorization") or "").removeprefix("Bearer ")
        with lock:
            row = db.execute("SELECT user_id FROM sessions WHERE token = ?", (token,)).fetchone()
        return row[0] if row else None

    def do_GET(self):
        if self.path == "/me":
            user = self.session_user()
            return self.answer(200, {"subject": user}) if user else self.answer(401, {"error": "unauthorized"})
        if self.path == "/_stats" and TEST_CONTROLS:
            with lock:
                return self.answer(200, dict(stats))
        self.answer(404, {"error": "not_found"})

    def do_POST(self):
        raw = self.rfile.read(int(self.headers.get("Content-Length") or 0))
        if self.path.startswith("/deeplinks/"):
            purpose = "hook:" + self.path[len("/deeplinks/"):].split("?")[0]
            if not verify_signature(self.headers.get("Deeplinks-Signature"), raw, purpose):
                with lock:
                    stats["refused_signatures"] += 1
                return self.answer(401, {"error": "bad_signature"})
        try:
            body = json.loads(raw or b"{}")
        except ValueError:
            return self.answer(400, {"error": "malformed_request"})

        if self.path == "/deeplinks/lookup":
            with lock:
                stats["lookups"] += 1
                failing = faults["lookup_failures"] > 0
                faults["lookup_failures"] -= 1 if failing else 0
            if failing:
                return self.answer(503, {"error": "unavailable"})
            row = self.user(body.get("email", ""))
            return self.answer(200, {"subject": row[0]}) if row else self.answer(404, {"error": "no_account"})

        if self.path == "/deeplinks/password":
            with lock:
                stats["password_calls"] += 1
                down, delay = faults["password_down"], faults["password_delay"]
            time.sleep(delay)
            if down:
                return self.answer(503, {"error": "unavailable"})
            reasons = set_password(body.get("subject", ""), body.get("password", ""))
            if reasons is None:
                return self.answer(404, {"error": "no_account"})
            return self.answer(422, {"reasons": reasons}) if reasons else self.answer(204)

        if self.path == "/signup":
            user_id = "u_" + secrets.token_hex(8)
            try:
                with lock:
                    db.execute(
                        "INSERT INTO users VALUES (?, ?, ?)",
                        (user_id, body["email"].strip().lower(), hash_password(body["password"])),
                    )
                    db.commit()
            except sqlite3.IntegrityError:
                return self.answer(409, {"error": "taken"})
            return self.answer(201, {"subject": user_id})

        if self.path == "/login":
            row = self.user(body.get("email", ""))
            if not row or not password_matches(body.get("password", ""), row[2]):
                return self.answer(401, {"error": "unauthorized"})
            token = secrets.token_urlsafe(32)
            with lock:
                db.execute("INSERT INTO sessions VALUES (?, ?)", (token, row[0]))
                db.commit()
            return self.answer(200, {"session": token})

        if self.path == "/forgot":
            row = self.user(body.get("email", ""))
            if row:
                deliver = body.get("deliver", "mail")
                status, answer = deeplinks("/v1/reset-links", {"subject": row[0], "email": row[1], "deliver": deliver})
                if status != 201:
                    return self.answer(502, {"error": "reset_link_failed", "status": status})
                if deliver == "return":  # our own mail, with the link the server printed
                    os.makedirs(OUTBOX, exist_ok=True)
                    name = os.path.join(OUTBOX, f"{time.time_ns()}.txt")
                    with open(name, "w") as mail:
                        mail.write(f"To: {row[1]}\nSubject: Reset your password\n\nOpen {answer['link']} before {answer['expiresAt']}.\n")
            return self.answer(202, {"status": "accepted"})  # the same answer whether or not the user exists

        if self.path == "/reset":
            password = body.get("password", "")
            if len(password) < 8:  # checked before the token is spent
                return self.answer(422, {"reasons": ["too_short"]})
            status, answer = deeplinks("/v1/reset-links/consume", {"token": body.get("token", "")})
            if status != 200:
                return self.answer(400, {"error": "invalid_or_expired_token"})
            set_password(answer["subject"], password)
            return self.answer(204)

        if self.path == "/password":
            user = self.session_user()
            if not user:
                return self.answer(401, {"error": "unauthorized"})
            reasons = set_password(user, body.get("newPassword", ""))
            if reasons:
                return self.answer(422, {"reasons": reasons})
            deeplinks("/v1/reset-links/revoke", {"subject": user})  # a reset link sent earlier dies
            return self.answer(204)

        if self.path == "/_faults" and TEST_CONTROLS:
            with lock:
                faults.update({k: v for k, v in body.items() if k in faults})
            return self.answer(204)

        self.answer(404, {"error": "not_found"})


if __name__ == "__main__":
    if not HOOK_SECRETS:
        raise SystemExit("set DEEPLINKS_HOOK_SECRETS to the server's (VERSION:BASE64)")
    port = int(os.environ.get("PORT", "9090"))
    print(f"existing backend on http://127.0.0.1:{port}", flush=True)
    ThreadingHTTPServer(("127.0.0.1", port), Handler).serve_forever()
