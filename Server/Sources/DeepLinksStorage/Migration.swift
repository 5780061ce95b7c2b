import SQLKit

/// One step of the schema, identified by a version that never changes once released.
///
/// Migrations are plain SQL that both SQLite and PostgreSQL accept; where the dialects differ, the
/// step receives the database kind. Add new steps at the end of ``Migration/all``; never edit a released one.
public struct Migration: Sendable {
    public let version: Int
    public let name: String
    let apply: @Sendable (any SQLDatabase, DatabaseKind) async throws -> Void

    public init(
        version: Int,
        name: String,
        apply: @escaping @Sendable (any SQLDatabase, DatabaseKind) async throws -> Void
    ) {
        self.version = version
        self.name = name
        self.apply = apply
    }

    /// Every migration, in order.
    public static let all: [Migration] = [
        Migration(version: 1, name: "create server_settings") { sql, _ in
            try await sql.raw(
                """
                CREATE TABLE server_settings (
                    key TEXT PRIMARY KEY,
                    value TEXT NOT NULL,
                    updated_at TEXT NOT NULL
                )
                """
            ).run()
        },
        Migration(version: 2, name: "accounts, sessions, password resets, mail outbox, audit") { sql, kind in
            let id = kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
            // Times are milliseconds since 1970 (BIGINT): the same comparisons on both databases.
            for statement in [
                """
                CREATE TABLE accounts (
                    id \(id),
                    email TEXT NOT NULL UNIQUE,
                    email_display TEXT NOT NULL,
                    password_hash TEXT NOT NULL,
                    credential_generation BIGINT NOT NULL DEFAULT 0,
                    disabled BOOLEAN NOT NULL DEFAULT FALSE,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE sessions (
                    token_hash TEXT PRIMARY KEY,
                    account_id BIGINT NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX sessions_account ON sessions(account_id)",
                """
                CREATE TABLE password_resets (
                    id \(id),
                    account_id BIGINT NOT NULL UNIQUE REFERENCES accounts(id) ON DELETE CASCADE,
                    token_hash TEXT NOT NULL UNIQUE,
                    key_version BIGINT NOT NULL,
                    email TEXT NOT NULL,
                    credential_generation BIGINT NOT NULL,
                    expires_at BIGINT NOT NULL,
                    failed_attempts BIGINT NOT NULL DEFAULT 0,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE reset_requests (
                    id \(id),
                    address TEXT NOT NULL,
                    address_key TEXT NOT NULL,
                    received_at BIGINT NOT NULL,
                    processed BOOLEAN NOT NULL DEFAULT FALSE,
                    mailed BOOLEAN NOT NULL DEFAULT FALSE
                )
                """,
                "CREATE INDEX reset_requests_key ON reset_requests(address_key, received_at)",
                """
                CREATE TABLE mail_outbox (
                    id \(id),
                    kind TEXT NOT NULL,
                    sealed_message TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    attempts BIGINT NOT NULL DEFAULT 0,
                    sent_at BIGINT,
                    last_error TEXT
                )
                """,
                "CREATE INDEX mail_outbox_due ON mail_outbox(sent_at, next_attempt_at)",
                """
                CREATE TABLE audit_events (
                    id \(id),
                    event TEXT NOT NULL,
                    account_id BIGINT,
                    ip_hash TEXT,
                    user_agent TEXT,
                    at BIGINT NOT NULL
                )
                """,
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        Migration(version: 3, name: "smart links and their click counts") { sql, _ in
            for statement in [
                """
                CREATE TABLE links (
                    code TEXT PRIMARY KEY,
                    document TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                // One row per link, day, platform and bot flag: aggregates only, no IP address, no user agent.
                """
                CREATE TABLE link_clicks (
                    code TEXT NOT NULL,
                    day TEXT NOT NULL,
                    platform TEXT NOT NULL,
                    bot BOOLEAN NOT NULL,
                    clicks BIGINT NOT NULL,
                    PRIMARY KEY (code, day, platform, bot)
                )
                """,
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // A deferred link's token, as a keyed hash only, until it is redeemed or expires.
        Migration(version: 4, name: "deferred link tokens") { sql, _ in
            try await sql.raw(
                """
                CREATE TABLE deferred_links (
                    token_hash TEXT PRIMARY KEY,
                    code TEXT NOT NULL,
                    expires_at BIGINT NOT NULL
                )
                """
            ).run()
        },
        // Several servers on one database: a queued message is claimed before it is sent (its lease is
        // `next_attempt_at`), keeps the Message-ID it was queued with and the key version it was sealed
        // under, and names the reset token it carries so a superseded link is never sent. Throttles that
        // must hold across servers live in `rate_limits`; sessions expire when idle.
        Migration(version: 5, name: "outbox claims, shared rate limits, session lifetime, pruning indexes") {
            sql,
            kind in
            let real = kind == .sqlite ? "REAL" : "DOUBLE PRECISION"
            // SQLite: the click table is its primary key (WITHOUT ROWID) instead of a table and an index that
            // both hold the key.
            let clicksWithoutRowID =
                kind == .sqlite
                ? [
                    """
                    CREATE TABLE link_clicks_keyed (
                        code TEXT NOT NULL,
                        day TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        bot BOOLEAN NOT NULL,
                        clicks BIGINT NOT NULL,
                        PRIMARY KEY (code, day, platform, bot)
                    ) WITHOUT ROWID
                    """,
                    "INSERT INTO link_clicks_keyed SELECT code, day, platform, bot, clicks FROM link_clicks",
                    "DROP TABLE link_clicks",
                    "ALTER TABLE link_clicks_keyed RENAME TO link_clicks",
                ] : []
            for statement in clicksWithoutRowID + [
                "ALTER TABLE mail_outbox ADD COLUMN message_id TEXT",
                "ALTER TABLE mail_outbox ADD COLUMN key_version BIGINT",
                "ALTER TABLE mail_outbox ADD COLUMN reset_token_hash TEXT",
                "CREATE INDEX mail_outbox_created ON mail_outbox(created_at)",
                """
                CREATE TABLE rate_limits (
                    key TEXT PRIMARY KEY,
                    tokens \(real) NOT NULL,
                    updated_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX rate_limits_updated ON rate_limits(updated_at)",
                "ALTER TABLE sessions ADD COLUMN last_used_at BIGINT",
                "CREATE INDEX sessions_created ON sessions(created_at)",
                "CREATE INDEX audit_events_at ON audit_events(at)",
                "CREATE INDEX password_resets_expiry ON password_resets(expires_at)",
                "CREATE INDEX deferred_links_expiry ON deferred_links(expires_at)",
                "CREATE INDEX reset_requests_processed ON reset_requests(processed, id)",
                // Mail to accounts younger than a day, and who asked (a keyed hash of the client's network): what
                // the hourly budgets count.
                "ALTER TABLE reset_requests ADD COLUMN new_account BOOLEAN NOT NULL DEFAULT FALSE",
                "ALTER TABLE reset_requests ADD COLUMN client_key TEXT",
                "CREATE INDEX reset_requests_client ON reset_requests(client_key, received_at)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // External accounts (the team's backend keeps users and passwords): an account row is then the
        // backend's user id (`subject`) and address, so tokens, throttles and audit work as for built-in
        // accounts. A token is held while the backend's password hook runs; a failed lookup waits and retries.
        Migration(version: 6, name: "external accounts: subjects, held tokens, lookup retries") { sql, _ in
            for statement in [
                "ALTER TABLE accounts ADD COLUMN subject TEXT",
                "CREATE UNIQUE INDEX accounts_subject ON accounts(subject)",
                "ALTER TABLE password_resets ADD COLUMN held_until BIGINT",
                "ALTER TABLE reset_requests ADD COLUMN lookup_attempts BIGINT NOT NULL DEFAULT 0",
                "ALTER TABLE reset_requests ADD COLUMN next_lookup_at BIGINT NOT NULL DEFAULT 0",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Every link edit, so each server drops the code from its cache within a second (the redirect cache keeps
        // links for minutes instead of seconds); pruned after an hour.
        Migration(version: 7, name: "link change log") { sql, kind in
            let id = kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
            for statement in [
                "CREATE TABLE link_changes (id \(id), code TEXT NOT NULL, at BIGINT NOT NULL)",
                "CREATE INDEX link_changes_at ON link_changes(at)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Where a click came from: the link itself, or its QR code (`?qr=1`), counted apart. Existing counts are
        // the link's.
        Migration(version: 8, name: "click sources") { sql, kind in
            let statements =
                kind == .sqlite
                ? [
                    """
                    CREATE TABLE link_clicks_sourced (
                        code TEXT NOT NULL,
                        day TEXT NOT NULL,
                        platform TEXT NOT NULL,
                        bot BOOLEAN NOT NULL,
                        source TEXT NOT NULL DEFAULT 'link',
                        clicks BIGINT NOT NULL,
                        PRIMARY KEY (code, day, platform, bot, source)
                    ) WITHOUT ROWID
                    """,
                    """
                    INSERT INTO link_clicks_sourced SELECT code, day, platform, bot, 'link', clicks FROM link_clicks
                    """,
                    "DROP TABLE link_clicks",
                    "ALTER TABLE link_clicks_sourced RENAME TO link_clicks",
                ]
                : [
                    "ALTER TABLE link_clicks ADD COLUMN source TEXT NOT NULL DEFAULT 'link'",
                    "ALTER TABLE link_clicks DROP CONSTRAINT link_clicks_pkey",
                    "ALTER TABLE link_clicks ADD PRIMARY KEY (code, day, platform, bot, source)",
                ]
            for statement in statements {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Webhook events, one row per endpoint, queued in the transaction of the change (WebhookEvents).
        Migration(version: 9, name: "webhook outbox") { sql, kind in
            let id = kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
            for statement in [
                """
                CREATE TABLE webhook_outbox (
                    id \(id),
                    endpoint TEXT NOT NULL,
                    event_id TEXT NOT NULL,
                    event_type TEXT NOT NULL,
                    body TEXT NOT NULL,
                    created_at BIGINT NOT NULL,
                    next_attempt_at BIGINT NOT NULL,
                    attempts BIGINT NOT NULL,
                    sent_at BIGINT,
                    last_error TEXT
                )
                """,
                "CREATE INDEX webhook_outbox_due ON webhook_outbox(next_attempt_at) WHERE sent_at IS NULL",
                "CREATE INDEX webhook_outbox_created ON webhook_outbox(created_at)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // The console's operators (apart from the app's accounts), their sessions, and scoped API keys. Secrets are
        // stored as their SHA-256 only (Operators).
        Migration(version: 10, name: "console operators, sessions and API keys") { sql, kind in
            let id = kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
            for statement in [
                """
                CREATE TABLE operators (
                    id \(id),
                    email TEXT NOT NULL UNIQUE,
                    password_hash TEXT NOT NULL,
                    role TEXT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                """
                CREATE TABLE console_sessions (
                    token_hash TEXT PRIMARY KEY,
                    operator_id BIGINT NOT NULL,
                    created_at BIGINT NOT NULL,
                    last_used_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX console_sessions_operator ON console_sessions(operator_id)",
                "CREATE INDEX console_sessions_used ON console_sessions(last_used_at)",
                """
                CREATE TABLE api_keys (
                    id \(id),
                    name TEXT NOT NULL,
                    role TEXT NOT NULL,
                    prefix TEXT NOT NULL,
                    key_hash TEXT NOT NULL UNIQUE,
                    created_at BIGINT NOT NULL,
                    created_by TEXT,
                    last_used_at BIGINT,
                    revoked_at BIGINT
                )
                """,
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // The sites people came from, per link and day (the host of the Referer only).
        Migration(version: 11, name: "click referrers") { sql, kind in
            try await sql.raw(
                """
                CREATE TABLE link_referrers (
                    code TEXT NOT NULL,
                    day TEXT NOT NULL,
                    referrer TEXT NOT NULL,
                    clicks BIGINT NOT NULL,
                    PRIMARY KEY (code, day, referrer)
                )\(unsafeRaw: kind == .sqlite ? " WITHOUT ROWID" : "")
                """
            ).run()
        },
        // A key belongs to the operator who made it (removing them revokes it, lowering their role lowers it, and
        // the note says why); the browsers an operator signed in from (their sign-ins skip the per-address lockout);
        // what admins did in the console.
        Migration(version: 12, name: "operator-owned keys, sign-in devices, console audit") { sql, kind in
            let id = kind == .sqlite ? "INTEGER PRIMARY KEY AUTOINCREMENT" : "BIGSERIAL PRIMARY KEY"
            for statement in [
                "ALTER TABLE api_keys ADD COLUMN operator_id BIGINT",
                "ALTER TABLE api_keys ADD COLUMN note TEXT",
                "UPDATE api_keys SET operator_id = (SELECT id FROM operators WHERE operators.email = api_keys.created_by)",
                "CREATE INDEX api_keys_operator ON api_keys(operator_id)",
                """
                CREATE TABLE operator_devices (
                    token_hash TEXT PRIMARY KEY,
                    operator_id BIGINT NOT NULL,
                    created_at BIGINT NOT NULL
                )
                """,
                "CREATE INDEX operator_devices_operator ON operator_devices(operator_id)",
                """
                CREATE TABLE console_audit (
                    id \(id),
                    at BIGINT NOT NULL,
                    actor TEXT NOT NULL,
                    event TEXT NOT NULL,
                    detail TEXT NOT NULL
                )
                """,
                "CREATE INDEX console_audit_at ON console_audit(at)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Clicks per rule of a link and variant of its split ('' when the rule has none), per day.
        Migration(version: 13, name: "clicks per link rule") { sql, kind in
            try await sql.raw(
                """
                CREATE TABLE link_rule_clicks (
                    code TEXT NOT NULL,
                    day TEXT NOT NULL,
                    rule TEXT NOT NULL,
                    variant TEXT NOT NULL,
                    clicks BIGINT NOT NULL,
                    PRIMARY KEY (code, day, rule, variant)
                )\(unsafeRaw: kind == .sqlite ? " WITHOUT ROWID" : "")
                """
            ).run()
        },
        // Keys that migration 12 could give no operator kept their role for ever. A key made by an operator who was
        // removed before keys belonged to operators is revoked, as removing them now revokes their keys. A key
        // minted through the API before then (`created_by` 'api') came from a key whose holder nobody recorded: it
        // is lowered to viewer (it can read, and mints nothing), until an admin makes a key with the role it needs.
        // Keys of `deeplinks keys create` ('cli') are the server owner's and keep their role.
        Migration(version: 14, name: "keys without an operator: revoked or lowered") { sql, kind in
            let now =
                kind == .sqlite
                ? "CAST(strftime('%s', 'now') AS BIGINT) * 1000" : "CAST(EXTRACT(EPOCH FROM now()) * 1000 AS BIGINT)"
            for statement in [
                """
                UPDATE api_keys SET revoked_at = \(now),
                    note = 'revoked at the upgrade: ' || created_by || ' was no longer an operator'
                WHERE revoked_at IS NULL AND operator_id IS NULL AND created_by IS NOT NULL
                    AND created_by NOT IN ('cli', 'api')
                """,
                """
                UPDATE api_keys SET role = 'viewer',
                    note = 'lowered from ' || role || ' to viewer at the upgrade: minted through the API by a key nobody recorded; an admin makes a new key with the role it needs'
                WHERE revoked_at IS NULL AND operator_id IS NULL AND created_by = 'api' AND role <> 'viewer'
                """,
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // An account is used once someone signs in to it or completes a reset for it (which proves the address);
        // a sign-up nobody ever used is pruned (PruningStore). Every account before this one counts as used.
        Migration(version: 15, name: "accounts used: unused sign-ups are pruned") { sql, _ in
            for statement in [
                "ALTER TABLE accounts ADD COLUMN used_at BIGINT",
                "UPDATE accounts SET used_at = created_at",
                "CREATE INDEX accounts_unused ON accounts(created_at) WHERE used_at IS NULL",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Click counts are kept for a time (`--click-retention-days`): the pruning deletes by day.
        Migration(version: 16, name: "click counts pruned by day") { sql, _ in
            for statement in [
                "CREATE INDEX link_clicks_day ON link_clicks(day)",
                "CREATE INDEX link_referrers_day ON link_referrers(day)",
                "CREATE INDEX link_rule_clicks_day ON link_rule_clicks(day)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Click analytics (AnalyticsStore): per link, clicks and visitors per hour and per day by class (people,
        // scanners, previews), and per day by facet (country, region, city, os, browser, in-app); the day's visitor
        // hashes, keyed with the day's salt, both deleted when the day is over. No address or agent is stored.
        Migration(version: 17, name: "click analytics: visitors, hours, classes, facets") { sql, kind in
            let compact = kind == .sqlite ? " WITHOUT ROWID" : ""
            for statement in [
                "CREATE TABLE analytics_salts (day TEXT PRIMARY KEY, salt TEXT NOT NULL)",
                """
                CREATE TABLE click_visitors (
                    code TEXT NOT NULL, day TEXT NOT NULL, visitor TEXT NOT NULL, PRIMARY KEY (code, day, visitor)
                )\(compact)
                """,
                "CREATE INDEX click_visitors_day ON click_visitors(day)",
                """
                CREATE TABLE link_click_hours (
                    code TEXT NOT NULL, hour TEXT NOT NULL, class TEXT NOT NULL,
                    clicks BIGINT NOT NULL, visitors BIGINT NOT NULL, PRIMARY KEY (code, hour, class)
                )\(compact)
                """,
                "CREATE INDEX link_click_hours_hour ON link_click_hours(hour)",
                """
                CREATE TABLE link_click_days (
                    code TEXT NOT NULL, day TEXT NOT NULL, class TEXT NOT NULL,
                    clicks BIGINT NOT NULL, visitors BIGINT NOT NULL, PRIMARY KEY (code, day, class)
                )\(compact)
                """,
                "CREATE INDEX link_click_days_day ON link_click_days(day)",
                """
                CREATE TABLE link_click_facets (
                    code TEXT NOT NULL, day TEXT NOT NULL, facet TEXT NOT NULL, value TEXT NOT NULL, class TEXT NOT NULL,
                    clicks BIGINT NOT NULL, PRIMARY KEY (code, facet, day, value, class)
                )\(compact)
                """,
                "CREATE INDEX link_click_facets_day ON link_click_facets(day)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // The funnel after the clicks (FunnelStore): the app's opens and goals, installs, the reset journey's goal,
        // per link ('' for none), day, kind and name; each app event's ID, so a retry is counted once.
        Migration(version: 18, name: "opens, installs and goals") { sql, kind in
            let compact = kind == .sqlite ? " WITHOUT ROWID" : ""
            for statement in [
                "CREATE TABLE app_events (id TEXT PRIMARY KEY, received_at BIGINT NOT NULL)\(compact)",
                "CREATE INDEX app_events_received_at ON app_events(received_at)",
                """
                CREATE TABLE link_funnel (
                    code TEXT NOT NULL, day TEXT NOT NULL, kind TEXT NOT NULL, name TEXT NOT NULL,
                    count BIGINT NOT NULL, PRIMARY KEY (code, day, kind, name)
                )\(compact)
                """,
                "CREATE INDEX link_funnel_day ON link_funnel(day)",
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
        // Universal-link health (HealthStore): iOS requests on claimed paths per day, domain, cause and detail; each
        // domain's last comparison of Apple's CDN copy of its association file with the one served.
        Migration(version: 19, name: "universal-link health") { sql, kind in
            let compact = kind == .sqlite ? " WITHOUT ROWID" : ""
            for statement in [
                """
                CREATE TABLE link_health (
                    day TEXT NOT NULL, domain TEXT NOT NULL, cause TEXT NOT NULL, detail TEXT NOT NULL,
                    requests BIGINT NOT NULL, PRIMARY KEY (day, domain, cause, detail)
                )\(compact)
                """,
                """
                CREATE TABLE association_cdn_checks (
                    domain TEXT PRIMARY KEY, checked_at BIGINT NOT NULL, differs_since BIGINT, notified_at BIGINT
                )
                """,
            ] {
                try await sql.raw(SQLQueryString(statement)).run()
            }
        },
    ]
}
