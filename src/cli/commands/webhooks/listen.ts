/**
 * `roster webhooks listen`: a local receiver for a receiver's author to see what the service
 * sends, each delivery verified as their own receiver must verify it. It is a server, so Ctrl-C
 * is its normal end (as for `serve`): it stops taking deliveries, prints a summary, exits 0.
 */
import type { AddressInfo } from 'node:net';
import type { Command } from 'commander';
import { isWebhookSecret } from '../../../contract/webhook-signature.js';
import { type Deps, type GlobalOptions, note, print } from '../../context.js';
import { CliError, usageError } from '../../errors.js';
import { count } from '../../output/count.js';
import { followFormat, formatterOf } from '../../output/render.js';
import { parsePort } from '../../parse.js';
import { onInterrupt } from '../../signals.js';
import { globalsOf } from '../shared/options.js';
import { deliveryLine } from './listen-format.js';
import type { Delivery } from './receiver.js';

export const SECRET_ENV = 'ROSTER_WEBHOOK_SECRET';

export interface ListenOptions {
  port: number;
  host: string;
  secret?: string;
  globals: GlobalOptions;
}

export function register(webhooks: Command, deps: Deps, runFn = runListen) {
  webhooks
    .command('listen')
    .description('receive deliveries on a local port, verify each signature, print each event')
    .requiredOption('--port <port>', 'port to listen on (0 = any free port)', parsePort)
    .option('--host <host>', 'address to listen on', '127.0.0.1')
    .option(
      '--secret <whsec>',
      `the webhook's secret (whsec_…); ${SECRET_ENV} is safer: argv is visible to other users in ps`,
    )
    .addHelpText(
      'after',
      `\nEach POST is verified over its raw body (webhook-id, webhook-timestamp within 5 minutes,\nwebhook-signature) and answered 204, or 401 with the reason on stderr. Output: one line per\nevent, or -o ndjson (or json) for the deliveries as received, one a line. Ctrl-C stops it.\nThe secret: --secret, or safer, the environment: ${SECRET_ENV}=whsec_… roster webhooks listen --port 9000`,
    )
    .action((opts: Omit<ListenOptions, 'globals'>, cmd: Command) =>
      runFn({ ...opts, globals: globalsOf(cmd) }, deps),
    );
}

export async function runListen(opts: ListenOptions, deps: Deps): Promise<void> {
  // Default: a line a person reads; -o ndjson (or json, which follows as NDJSON): each
  // delivery's body as received, one a line, through the format's own writer.
  const follow = followFormat(opts.globals.output, deps.io, 'webhooks listen', 'delivery');
  const secret = opts.secret ?? deps.env[SECRET_ENV];
  if (!secret) {
    throw usageError(
      `webhooks listen needs the webhook's secret: --secret whsec_… or ${SECRET_ENV}`,
    );
  }
  if (!isWebhookSecret(secret)) {
    throw usageError(
      `the secret is not a webhook secret: whsec_ followed by base64, as 'roster webhooks add' printed it`,
    );
  }
  const { createReceiver } = await import('./receiver.js');
  const rows = follow
    ? await formatterOf(follow).begin(deps.io, { columns: [], json: (d: Delivery) => d.body })
    : undefined;
  let verified = 0;
  let refused = 0;
  const server = createReceiver({
    secrets: [secret],
    onDelivery: async (d) => {
      verified++;
      if (rows) await rows.row(d);
      else print(deps.io, deliveryLine(d, deps.io.columns ?? 80));
    },
    onRefused: (status, reason, req) => {
      refused++;
      const id = req.headers['webhook-id'];
      note(deps.io, `${status} ${typeof id === 'string' ? `${id}: ` : ''}${reason}`);
    },
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(
        new CliError(
          err.code === 'EADDRINUSE'
            ? `port ${opts.port} on ${opts.host} is in use; pick another with --port`
            : `cannot listen on ${opts.host}:${opts.port}: ${err.message}`,
        ),
      ),
    );
    server.listen(opts.port, opts.host, resolve);
  });
  const { port } = server.address() as AddressInfo;
  const host = opts.host.includes(':') ? `[${opts.host}]` : opts.host;
  note(deps.io, `listening on http://${host}:${port}/ (Ctrl-C stops)`);
  await new Promise<void>((resolve) => {
    const stopListening = onInterrupt(() => {
      stopListening();
      server.close(() => resolve());
      server.closeAllConnections();
    });
  });
  await rows?.end();
  note(
    deps.io,
    `stopped: ${count(verified, 'delivery', 'deliveries')} verified, ${refused} refused`,
  );
}
