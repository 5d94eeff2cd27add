-- Upstream batlehub's tables that the scan worker touches, as upstream's migrations leave
-- them: written from ../shared/reference/upstream-storage-and-queue.md (A.6: migrations 002,
-- 004 and 007; B.2: 049–052), independently of src/adapters/queue/postgres_queue.cc, so that
-- a test holding this worker's adapter against it holds it against upstream, not against
-- itself. sqlx's bookkeeping table is here too: its presence is how a database says that
-- upstream's migrator has run on it.
--
-- Index names are this file's own: the reference gives each index's columns, not its name.

CREATE TABLE _sqlx_migrations (
  version bigint PRIMARY KEY,
  description text NOT NULL,
  installed_on timestamptz NOT NULL DEFAULT now(),
  success boolean NOT NULL,
  checksum bytea NOT NULL,
  execution_time bigint NOT NULL
);
INSERT INTO _sqlx_migrations (version, description, success, checksum, execution_time)
  SELECT v, 'upstream migration ' || v, true, '\x00'::bytea, 0 FROM generate_series(1, 52) AS v;

-- A.6
CREATE TABLE artifact_dedup_index (
  content_hash text PRIMARY KEY,
  content_key text NOT NULL,
  ref_count integer NOT NULL DEFAULT 1,
  size_bytes bigint
);
CREATE TABLE artifact_dedup_refs (
  logical_key text PRIMARY KEY,
  content_hash text NOT NULL REFERENCES artifact_dedup_index (content_hash)
);
CREATE INDEX upstream_dedup_refs_hash ON artifact_dedup_refs (content_hash);
CREATE TABLE artifact_storage (
  storage_key text PRIMARY KEY,
  backend_name text NOT NULL,
  stored_at timestamptz NOT NULL DEFAULT now(),
  size_bytes bigint
);
CREATE INDEX upstream_storage_backend ON artifact_storage (backend_name);

-- B.2, migration 049
CREATE TABLE artifact_verdicts (
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  state text NOT NULL,
  reason_codes text[] NOT NULL DEFAULT '{}',
  policy_ref text NOT NULL,
  available_at timestamptz,
  evaluated_at timestamptz NOT NULL,
  last_scanned_at timestamptz,
  scanners_done text[] NOT NULL DEFAULT '{}',
  PRIMARY KEY (registry, package_name, version)
);
CREATE INDEX upstream_verdicts_state ON artifact_verdicts (registry, state);

-- 050
CREATE TABLE artifact_findings (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  scanner text NOT NULL,
  kind text NOT NULL,
  code text NOT NULL,
  severity text NOT NULL,
  reference text,
  summary text NOT NULL,
  confidence smallint,
  available_at timestamptz,
  raw jsonb NOT NULL DEFAULT 'null'::jsonb,
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX upstream_findings_coordinate ON artifact_findings (registry, package_name, version);

-- 051
CREATE TABLE scan_jobs (
  id uuid PRIMARY KEY,
  registry text NOT NULL,
  package_name text NOT NULL,
  version text NOT NULL,
  published_at timestamptz,
  artifact_sha256 text,
  trigger text NOT NULL,
  priority smallint NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  leased_until timestamptz,
  leased_by text,
  last_error text,
  created_at timestamptz NOT NULL DEFAULT now(),
  completed_at timestamptz
);
CREATE UNIQUE INDEX upstream_scan_jobs_open ON scan_jobs (registry, package_name, version)
  WHERE completed_at IS NULL;
CREATE INDEX upstream_scan_jobs_lease ON scan_jobs (priority, created_at) WHERE completed_at IS NULL;

-- 052
CREATE TABLE worker_heartbeats (
  worker_id text PRIMARY KEY,
  last_seen timestamptz NOT NULL,
  registries text[] NOT NULL DEFAULT '{}'
);
