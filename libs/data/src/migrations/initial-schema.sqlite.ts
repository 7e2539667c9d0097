// SQLite DDL of the initial schema, the PostgreSQL one translated: uuids are text;
// timestamps are TypeORM's 'YYYY-MM-DD HH:MM:SS.SSS' UTC text, which sorts and
// compares correctly as text and keeps milliseconds; JSON is text.

export const UP = [
  `CREATE TABLE applications (
    id varchar(36) NOT NULL,
    slug varchar(63) NOT NULL,
    name text NOT NULL,
    status varchar(16) NOT NULL,
    plan text NOT NULL,
    contact_email text,
    limits text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    deleted_at text,
    CONSTRAINT pk_applications PRIMARY KEY (id),
    CONSTRAINT ck_applications_status CHECK (status IN ('active', 'suspended'))
  )`,
  // A deleted application's slug may be used again.
  `CREATE UNIQUE INDEX uq_applications_live_slug ON applications (slug) WHERE deleted_at IS NULL`,

  `CREATE TABLE credentials (
    id varchar(36) NOT NULL,
    application_id varchar(36) NOT NULL,
    name text,
    prefix text NOT NULL,
    key_hash text NOT NULL,
    revoked_at text,
    expires_at text,
    replaced_by_id varchar(36),
    created_at text NOT NULL,
    last_used_at text,
    CONSTRAINT pk_credentials PRIMARY KEY (id),
    CONSTRAINT fk_credentials_application FOREIGN KEY (application_id) REFERENCES applications (id),
    CONSTRAINT fk_credentials_replaced_by FOREIGN KEY (replaced_by_id) REFERENCES credentials (id) ON DELETE SET NULL
  )`,
  `CREATE UNIQUE INDEX uq_credentials_key_hash ON credentials (key_hash)`,
  `CREATE INDEX ix_credentials_application ON credentials (application_id, created_at, id)`,

  `CREATE TABLE domains (
    id varchar(36) NOT NULL,
    application_id varchar(36) NOT NULL,
    hostname varchar(253) NOT NULL,
    reference varchar(255) NOT NULL,
    status varchar(32) NOT NULL,
    challenge_token text NOT NULL,
    metadata text NOT NULL,
    created_at text NOT NULL,
    updated_at text NOT NULL,
    deleted_at text,
    next_check_at text,
    CONSTRAINT pk_domains PRIMARY KEY (id),
    CONSTRAINT fk_domains_application FOREIGN KEY (application_id) REFERENCES applications (id),
    CONSTRAINT ck_domains_status CHECK (status IN ('pending_dns', 'ready', 'attention_required', 'deleting'))
  )`,
  // The one rule that keeps a hostname live in a single application, even under concurrent creates.
  `CREATE UNIQUE INDEX uq_domains_live_hostname ON domains (hostname) WHERE deleted_at IS NULL`,
  `CREATE INDEX ix_domains_application_created ON domains (application_id, created_at, id)`,
  `CREATE INDEX ix_domains_application_reference ON domains (application_id, reference)`,
  `CREATE INDEX ix_domains_next_check ON domains (next_check_at) WHERE deleted_at IS NULL`,

  `CREATE TABLE domain_checks (
    domain_id varchar(36) NOT NULL,
    type varchar(16) NOT NULL,
    status varchar(16) NOT NULL,
    error_code text,
    message text,
    observed_at text,
    next_check_at text,
    CONSTRAINT pk_domain_checks PRIMARY KEY (domain_id, type),
    CONSTRAINT fk_domain_checks_domain FOREIGN KEY (domain_id) REFERENCES domains (id) ON DELETE CASCADE,
    CONSTRAINT ck_domain_checks_type CHECK (type IN ('ownership', 'routing', 'certificate', 'origin')),
    CONSTRAINT ck_domain_checks_status CHECK (status IN ('pending', 'passing', 'failing'))
  )`,

  `CREATE TABLE idempotency_keys (
    application_id varchar(36) NOT NULL,
    "key" text NOT NULL,
    request_hash text NOT NULL,
    state varchar(16) NOT NULL,
    response_status integer,
    response_body text,
    created_at text NOT NULL,
    expires_at text NOT NULL,
    CONSTRAINT pk_idempotency_keys PRIMARY KEY (application_id, "key"),
    CONSTRAINT fk_idempotency_keys_application FOREIGN KEY (application_id) REFERENCES applications (id) ON DELETE CASCADE,
    CONSTRAINT ck_idempotency_keys_state CHECK (state IN ('in_progress', 'completed'))
  )`,
  `CREATE INDEX ix_idempotency_keys_expires ON idempotency_keys (expires_at)`,

  `CREATE TABLE rate_counters (
    "key" text NOT NULL,
    window_start text NOT NULL,
    reset_at text NOT NULL,
    "count" integer NOT NULL,
    CONSTRAINT pk_rate_counters PRIMARY KEY ("key")
  )`,
  `CREATE INDEX ix_rate_counters_reset ON rate_counters (reset_at)`,

  `CREATE TABLE outbox (
    -- Only an INTEGER PRIMARY KEY can autoincrement in SQLite, so seq is the primary key here and id a unique key.
    seq integer NOT NULL CONSTRAINT pk_outbox_seq PRIMARY KEY AUTOINCREMENT,
    id varchar(36) NOT NULL,
    routing_key text NOT NULL,
    payload text NOT NULL,
    created_at text NOT NULL,
    published_at text,
    attempts integer NOT NULL DEFAULT 0,
    CONSTRAINT pk_outbox UNIQUE (id)
  )`,
  `CREATE INDEX ix_outbox_unpublished ON outbox (seq) WHERE published_at IS NULL`,

  `CREATE TABLE settings (
    "key" text NOT NULL,
    value text NOT NULL,
    updated_at text NOT NULL,
    CONSTRAINT pk_settings PRIMARY KEY ("key")
  )`,
];

export const DOWN = [
  'DROP TABLE settings',
  'DROP TABLE outbox',
  'DROP TABLE rate_counters',
  'DROP TABLE idempotency_keys',
  'DROP TABLE domain_checks',
  'DROP TABLE domains',
  'DROP TABLE credentials',
  'DROP TABLE applications',
];
