import { defineConfig } from 'vitest/config';

/**
 * Three projects: every test on SQLite (the default backend); the store contract and the
 * in-process suites (HTTP against a real server, the import, the CLI's run()) again on
 * PostgreSQL when ROSTER_TEST_DATABASE names one (a user that may create databases; each test
 * server gets a database of its own, test/helpers/database.ts); the media suites again with
 * media in S3 and the data in PostgreSQL. `.ci/run` starts both; without them those runs are
 * skipped with one line, and under CI=true that is a failure. A fourth, postgres-server, holds
 * the tests that crash a PostgreSQL cluster of their own (OWN_POSTGRES_TESTS).
 *
 * Each store and blob store runs the media suites once: SQLite with files on disk, PostgreSQL
 * with S3. The media service sees both only through the Store and BlobStore interfaces, so
 * PostgreSQL with files on disk would repeat what those two runs cover (its one difference, the
 * start-up sweep beside other replicas' rows, has its own test in test/store/postgres.test.ts).
 *
 * The spawned journeys (test/e2e) run once, on SQLite, except those that test an engine itself
 * (postgres-*, s3-*) and the interrupted import's resume: a spawned CLI talks HTTP to `serve`
 * whatever its store, and the store's side of every route runs on each backend in-process,
 * where it costs no process start-up.
 */
const postgres = process.env.ROSTER_TEST_DATABASE;
const s3 = process.env.ROSTER_TEST_BLOBS;

const POSTGRES_TESTS = [
  'test/store/store-contract.test.ts',
  'test/store/search-semantics.test.ts',
  'test/store/events-contract.test.ts',
  'test/store/events-followers.test.ts',
  'test/server/events/**/*.test.ts',
  // The routes and the worker, which use the store; egress, attempt and schedule are pure
  // (no store), so once is enough.
  'test/server/webhooks/webhooks.routes.test.ts',
  'test/server/webhooks/delivery.test.ts',
  'test/server/webhooks/retention.test.ts',
  'test/server/webhooks/settle.test.ts',
  'test/server/webhooks/fan-out.test.ts',
  'test/store/postgres.test.ts',
  'test/store/postgres-failover.test.ts',
  'test/store/postgres-webhooks.test.ts',
  'test/store/upgrade.test.ts',
  'test/store/migration-log.test.ts',
  'test/store/identity-refold.test.ts',
  'test/store/login-name-index.test.ts',
  'test/store/migrations-schema.test.ts',
  'test/server/users/**/*.test.ts',
  'test/server/scim/**/*.test.ts',
  'test/server/http/auth.test.ts',
  'test/server/http/health.test.ts',
  'test/server/http/metrics.test.ts',
  'test/server/http/request-id.test.ts',
  'test/server/http/negotiation.test.ts',
  'test/server/http/host-trust.test.ts',
  'test/server/http/hostile.test.ts',
  'test/server/mail/delivery.test.ts',
  'test/import/run.test.ts',
  'test/import/plan-agrees.test.ts',
  'test/import/saved-plan.test.ts',
  'test/import/preset-imports.test.ts',
  'test/import/import-cli.test.ts',
  'test/cli/commands/users/users-cli.test.ts',
  'test/cli/commands/check/index.test.ts',
  // #22 asks the interrupted-and-resumed import on both backends, as a user meets it (on
  // PostgreSQL the case the store decides: the service dying mid-run).
  'test/e2e/import-resume.test.ts',
  'test/e2e/postgres-copy.test.ts',
  'test/e2e/postgres-replicas.test.ts',
  'test/cli/commands/local/copy-moved.test.ts',
];

/** The media suites, run again with media in an S3 bucket (and the data in PostgreSQL). */
const S3_TESTS = [
  'test/server/media/media.routes.test.ts',
  'test/server/media/quota.test.ts',
  'test/server/media/upload-limits.test.ts',
  'test/server/media/fair-previews.test.ts',
  // The avatar check reads media back through the BlobStore; --strip-metadata stores through it.
  'test/server/media/metadata.test.ts',
  'test/server/cdn/cdn.routes.test.ts',
  'test/e2e/s3-*.test.ts',
  'test/store/s3-*.test.ts',
  'test/e2e/postgres-haproxy.test.ts',
];

/**
 * Tests that run a PostgreSQL server of their own (its binaries, not ROSTER_TEST_DATABASE), to
 * crash and restart it: once per run, wherever the binaries are (skipped with one line where
 * not; required under CI=true); not again on `.ci/run`'s Node 20 line, which runs the sqlite
 * project: what they test is the service's handling of the database server, not Node.
 */
const OWN_POSTGRES_TESTS = [
  'test/e2e/postgres-crash.test.ts',
  // A Patroni cluster of its own (scripts/failover-test-server.sh).
  'test/e2e/postgres-failover.test.ts',
];

/** Tests of PostgreSQL alone: they need a database, so they run in that project only. */
const POSTGRES_ONLY = [
  'test/store/postgres.test.ts',
  'test/cli/commands/local/copy-moved.test.ts',
  'test/store/postgres-failover.test.ts',
  'test/store/events-followers.test.ts',
  'test/store/postgres-webhooks.test.ts',
  'test/e2e/postgres-*.test.ts',
  'test/e2e/s3-*.test.ts',
  'test/store/s3-*.test.ts',
];

if (!postgres) {
  const how =
    'set ROSTER_TEST_DATABASE=postgres://user:pass@127.0.0.1:5432/postgres (a user that may create databases; README "Tests")';
  if (process.env.CI === 'true') throw new Error(`PostgreSQL is required under CI=true: ${how}`);
  process.stderr.write(`skipping the PostgreSQL run of the suites: ${how}\n`);
}
if (!s3) {
  const how =
    'set ROSTER_TEST_BLOBS=s3://test, ROSTER_S3_ENDPOINT and the AWS keys (scripts/s3-test-server.sh starts a local radosgw and prints them)';
  if (process.env.CI === 'true') throw new Error(`an S3 server is required under CI=true: ${how}`);
  process.stderr.write(`skipping the S3 run of the media suites: ${how}\n`);
}

// isolate: false — a worker imports the code once for all its files instead of once per file
// (import time was 118 s of a 528 s run). Test files therefore leave no global state behind:
// no vi.mock, no global dispatcher, and process.env put back as it was.
const shared = { testTimeout: 30_000, hookTimeout: 60_000, isolate: false };

export default defineConfig({
  test: {
    // e2e tests spawn real servers; two cores here, so keep the pool small.
    maxWorkers: 2,
    globalSetup: ['test/global-setup.ts'],
    projects: [
      {
        test: {
          name: 'sqlite',
          include: ['test/**/*.test.ts'],
          exclude: [...POSTGRES_ONLY, ...OWN_POSTGRES_TESTS],
          env: { ROSTER_TEST_DATABASE: '', ROSTER_TEST_BLOBS: '' },
          ...shared,
        },
      },
      {
        test: {
          name: 'postgres-server',
          include: OWN_POSTGRES_TESTS,
          env: { ROSTER_TEST_DATABASE: '', ROSTER_TEST_BLOBS: '' },
          ...shared,
        },
      },
      ...(postgres
        ? [
            {
              test: {
                name: 'postgres',
                include: POSTGRES_TESTS,
                env: { ROSTER_TEST_DATABASE: postgres, ROSTER_TEST_BLOBS: '' },
                ...shared,
              },
            },
          ]
        : []),
      ...(postgres && s3
        ? [
            {
              test: {
                name: 's3',
                include: S3_TESTS,
                env: { ROSTER_TEST_DATABASE: postgres, ROSTER_TEST_BLOBS: s3 },
                ...shared,
              },
            },
          ]
        : []),
    ],
  },
});
