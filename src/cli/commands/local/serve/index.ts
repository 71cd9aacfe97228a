/** `roster serve`: the full service on a data dir, until SIGTERM/SIGINT drain it. */
import type { Command } from 'commander';
import { DEFAULT_VENDOR } from '../../../../contract/versions.js';
import type { Deps } from '../../../context.js';
import { parseNonNegativeInt, parsePort, parsePositiveInt, parseSize } from '../../../parse.js';
import type { ServeOptions } from './serve-run.js';

export function register(program: Command, deps: Deps, runFn = runServe) {
  program
    .command('serve')
    .description('run the user and media service on a local data dir')
    .option('--port <port>', 'port to listen on (0 = any free port)', parsePort, 8080)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option('--data <dir>', 'data dir (default: $ROSTER_DATA_DIR or the platform data dir)')
    .option(
      '--database <url>',
      "keep the data in PostgreSQL (postgres://user:pass@host:5432/db; sslmode in the URL) instead of the data dir's SQLite (default: $ROSTER_DATABASE_URL)",
    )
    .option(
      '--blobs <url>',
      'keep media files in an S3-compatible bucket (s3://bucket/prefix; endpoint from $ROSTER_S3_ENDPOINT, keys from the AWS variables) instead of the data dir (default: $ROSTER_BLOBS_URL)',
    )
    .option(
      '--db-pool-size <n>',
      'PostgreSQL connections per process (default 10)',
      parsePositiveInt,
    )
    .option(
      '--db-statement-timeout <seconds>',
      'a PostgreSQL statement slower than this is cut and answered 503 (default 10)',
      parsePositiveInt,
    )
    .option('--vendor <word>', 'vendor word of the versioned media types', DEFAULT_VENDOR)
    .option(
      '--like-platform',
      "behave as the real platform's documentation says, to test clients: no GET /api, new users only as user-invite.v2 (role and config.locale required), changes only as user-update.v1 or application/json, no deprecated user.v2, sort by name keys only, 406/415 without the supported list (use with --vendor staffbase)",
    )
    .option('--rate-limit <n/s>', 'requests per second per token (default: no limit)')
    .option(
      '--max-upload-size <size>',
      'largest accepted upload, e.g. 500MB (default 1GiB)',
      parseSize,
    )
    .option('--cdn-url <url>', 'public base URL of a CDN in front of /cdn')
    .option(
      '--cdn-token-only',
      'media URLs need authentication, as on the real platform since 2026-03: unsigned, and /cdn serves them only to an API token with media:read',
    )
    .option(
      '--quota <size>',
      'media storage per tenant, e.g. 50GB, for tenants without their own (`roster tenants quota`)',
      parseSize,
    )
    .option(
      '--strip-metadata',
      'store every image upload written again without its metadata (EXIF with GPS position and serial numbers, XMP, IPTC); HEIC becomes JPEG (default: uploads stored byte for byte; avatars refuse metadata either way)',
    )
    .option(
      '--body-timeout <seconds>',
      'a JSON or form body must arrive within this time, else 408 (default 10; uploads use an idle timeout)',
      parsePositiveInt,
    )
    .option(
      '--public-url <url>',
      "origin of the default tenant's absolute URLs instead of the Host header (named tenants: `roster tenants set`)",
    )
    .option(
      '--force-sweep',
      'let the start-up sweep remove more than 10 % of the media (only after a real loss)',
    )
    .option(
      '--sweep-grace <seconds>',
      "with a shared bucket (--blobs and --database), the start-up sweep removes a file no medium names, or an unfinished upload, only once older than this: another replica's upload may be about to commit (default 3600)",
      parseNonNegativeInt,
    )
    .option(
      '--events-retention <days>',
      'keep events (GET /api/events, roster events) this many days, pruned in the background (default 90)',
      parsePositiveInt,
    )
    .option(
      '--smtp-url <url>',
      'send invitations through this SMTP relay, e.g. smtp://user:pass@mail.example.com:587 (default: .eml files in <data>/outbox)',
    )
    .option(
      '--keep-alive-timeout <seconds>',
      "how long an idle keep-alive connection stays open (default 65; keep it above a load balancer's idle timeout)",
      parsePositiveInt,
    )
    .option(
      '--max-connections-per-client <n>',
      'open connections one client address may hold; the next is answered 503 and closed (default 256; 0 = no cap). Behind a proxy or load balancer every connection is its address: raise it or use 0',
      parseNonNegativeInt,
    )
    .option(
      '--drain-delay <seconds>',
      "on SIGTERM, answer with /readyz failing this long before closing, so a load balancer's health check takes this replica out first (default 0)",
      parseNonNegativeInt,
    )
    .option(
      '--metrics-token <token>',
      'serve GET /metrics (Prometheus) to "Authorization: Bearer <token>" (default: $ROSTER_METRICS_TOKEN, which keeps it out of ps; without either, no /metrics)',
    )
    .option(
      '--webhooks-allow <cidrs>',
      'deliver webhooks to these ranges too, e.g. 10.20.0.0/16,fd00::/8 (an intranet receiver): loopback, private, link-local (cloud metadata), CGNAT and multicast addresses are refused otherwise, checked on the address actually connected to',
    )
    .option(
      '--webhooks-allow-http',
      'let webhook URLs be http:// (default: https:// only; deliveries carry event data)',
    )
    .option('--access-log', 'log one line per request on stderr')
    .addHelpText(
      'after',
      '\nOn a fresh data dir (or empty database) serve creates the default tenant, its main branch and\nan admin token, and saves the token as CLI profile "local", so `roster users list` works next.\nA profile records its data dir: when "local" belongs to another data dir, the token is saved as\n"local-<port>" instead (serve says so; `roster profiles list` shows each one\'s data dir).\nWith --database, the data dir keeps only the lock, upload scratch and media files.',
    )
    .action((opts: ServeOptions) => runFn(opts, deps));
}

/** The body is in serve-run.ts, loaded only when serve runs (Koa and SQLite are slow to load). */
export async function runServe(opts: ServeOptions, deps: Deps): Promise<void> {
  const { runServe } = await import('./serve-run.js');
  await runServe(opts, deps);
}
