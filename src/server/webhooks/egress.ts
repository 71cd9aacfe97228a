/**
 * The egress guard (SSRF): where a webhook may be delivered. A URL is checked when it is saved
 * (checkWebhookUrl, the 400's details) and the address is checked again when each attempt
 * connects (guardedDispatcher): a name that resolved to a public address at POST may resolve to
 * 127.0.0.1 or 169.254.169.254 by the time of delivery (DNS rebinding), so only the address
 * actually connected to counts. The ranges refused are in ip-ranges.ts.
 *
 * With a proxy (the service's HTTPS_PROXY/HTTP_PROXY, minus NO_PROXY) the proxy resolves the
 * name and connects, so the service cannot see the address: it still refuses a literal address
 * or a `localhost` name in the URL (the proxy would reach its own loopback), and the proxy is
 * trusted to refuse internal destinations (a squid or an egress gateway's ACL). The proxy's own
 * address is the operator's choice and is not checked.
 */
import { lookup as dnsLookup } from 'node:dns';
import type { LookupFunction, Socket } from 'node:net';
import { Agent, buildConnector, type Dispatcher, EnvHttpProxyAgent } from 'undici';
import type { FieldIssue } from '../../contract/errors.js';
import { type Address, type Cidr, parseAddress, parseCidr, refusalOf } from './ip-ranges.js';

export type { Cidr } from './ip-ranges.js';

export const MAX_WEBHOOK_URL_LENGTH = 2048;

export interface EgressPolicy {
  /** `serve --webhooks-allow-http`: http:// URLs too (a test or an intranet receiver). */
  allowHttp?: boolean;
  /** `serve --webhooks-allow CIDR,…`: ranges delivered to although refused by default. */
  allow?: readonly Cidr[];
  /** The service's proxies, as the CLI reads them from the environment. */
  proxy?: { http?: string; https?: string; noProxy?: string };
}

/** A delivery refused by the guard; the message names the address and why. */
export class EgressRefusedError extends Error {
  readonly code = 'WEBHOOK_EGRESS_REFUSED';
  constructor(message: string) {
    super(message);
    this.name = 'EgressRefusedError';
  }
}

/** `serve --webhooks-allow`: comma-separated CIDRs or addresses; an Error names a bad entry. */
export function parseAllowList(text: string): Cidr[] {
  const entries = text
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0)
    throw new Error('--webhooks-allow: no IP range given (like 10.0.0.0/8)');
  return entries.map((entry) => {
    try {
      return parseCidr(entry);
    } catch (err) {
      throw new Error(`--webhooks-allow: ${(err as Error).message}`);
    }
  });
}

const hint = (a: string) =>
  `serve --webhooks-allow ${a.includes(':') ? `${a}/128` : `${a}/32`} allows it`;
const LOOPBACK: Address = { family: 4, value: 0x7f000001n };

/**
 * Why a URL's host may not be reached, judged without DNS: a literal address in a refused range,
 * or a `localhost` name (RFC 6761: always loopback, whatever a resolver says).
 */
export function hostRefusal(hostname: string, allow: readonly Cidr[] = []): string | undefined {
  const name = hostname.toLowerCase().replace(/\.$/, '');
  const literal = parseAddress(name);
  const address =
    literal ?? (name === 'localhost' || name.endsWith('.localhost') ? LOOPBACK : undefined);
  const why = address && refusalOf(address, allow);
  if (!why) return undefined;
  const shown = literal ? name.replace(/^\[|\]$/g, '') : '127.0.0.1';
  return literal ? `${shown} is ${why}; ${hint(shown)}` : `${name} is ${why}; ${hint(shown)}`;
}

/** What is wrong with a webhook URL, as the POST/PATCH 400's details (empty when nothing). */
export function checkWebhookUrl(url: string, policy: EgressPolicy): FieldIssue[] {
  const issue = (message: string) => [{ field: 'url', message }];
  if (url.length > MAX_WEBHOOK_URL_LENGTH) {
    return issue(`url is ${url.length} characters long; at most ${MAX_WEBHOOK_URL_LENGTH}`);
  }
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  if (!parsed) return issue('url is not an absolute URL (like https://hooks.example.com/roster)');
  const issues: FieldIssue[] = [];
  if (parsed.protocol !== 'https:' && !(policy.allowHttp && parsed.protocol === 'http:')) {
    const why = policy.allowHttp
      ? 'url must be http:// or https://'
      : 'url must be https:// (http:// only where serve runs with --webhooks-allow-http)';
    issues.push({ field: 'url', message: why });
  }
  if (parsed.username || parsed.password) {
    issues.push({
      field: 'url',
      message:
        'url must not carry a user name or password; receivers check the webhook-signature header instead',
    });
  }
  const refusal = parsed.hostname && hostRefusal(parsed.hostname, policy.allow);
  if (refusal) issues.push({ field: 'url', message: `url host ${refusal}` });
  return issues;
}

/** net's lookup, checking EVERY address a name resolves to before any is connected to. */
function guardedLookup(allow: readonly Cidr[], resolve: LookupFunction): LookupFunction {
  return (hostname, options, callback) => {
    resolve(hostname, { ...options, all: true }, (err, found) => {
      if (err) return callback(err, '', 0);
      const list = Array.isArray(found) ? found : [{ address: String(found), family: 0 }];
      for (const { address } of list) {
        const parsed = parseAddress(address);
        const why = parsed ? refusalOf(parsed, allow) : 'not an IP address';
        if (why) {
          const error = new EgressRefusedError(
            `refused to connect to ${address} (${hostname} resolves to it): ${why}; ${hint(address)}`,
          );
          return callback(error, '', 0);
        }
      }
      if (options.all) return (callback as (e: null, a: typeof list) => void)(null, list);
      const first = list[0]!;
      return callback(null, first.address, first.family);
    });
  };
}

/**
 * The dispatcher webhook attempts go through: direct connections check every address a name
 * resolves to, and the socket's remote address once connected; a literal or `localhost` host is
 * refused before anything is sent, proxy or not. `lookup` is for tests (a name that resolves
 * where the test says).
 */
export function guardedDispatcher(
  policy: EgressPolicy,
  opts: { lookup?: LookupFunction; connectTimeoutMs?: number } = {},
): Dispatcher {
  const allow = policy.allow ?? [];
  const base = buildConnector({
    timeout: opts.connectTimeoutMs ?? 10_000,
    lookup: guardedLookup(allow, opts.lookup ?? (dnsLookup as LookupFunction)),
  } as buildConnector.BuildOptions);
  const connect: buildConnector.connector = (options, callback) => {
    base(options, (err, socket) => {
      if (err) return callback(err, null);
      const remote = (socket as Socket).remoteAddress ?? '';
      const parsed = parseAddress(remote);
      const why = parsed ? refusalOf(parsed, allow) : `an unknown remote address '${remote}'`;
      if (!why) return callback(null, socket);
      socket.destroy();
      callback(
        new EgressRefusedError(`refused the connection to ${remote}: ${why}; ${hint(remote)}`),
        null,
      );
    });
  };
  // Connections are kept alive (undici's defaults: idle up to 4 s, or the receiver's own
  // `Keep-Alive: timeout` less 2 s), and that is safe because the guard is on the connection,
  // not the request: a reused socket is still connected to the address checked when it was
  // made, and a name that now resolves elsewhere (rebinding) is looked up, and checked, only
  // for a new one. Reuse is what lets one receiver take hundreds of deliveries a second
  // without a TCP and TLS handshake each. An attempt cut short (its timeout, an answer over
  // its cap: attempt.ts) destroys its socket, so no half-read answer is left on a reused one;
  // a receiver closing an idle socket just as a delivery goes out fails that attempt (undici
  // retries no POST), which the schedule retries.
  const proxy = policy.proxy;
  const dispatcher: Dispatcher =
    proxy?.http || proxy?.https
      ? new EnvHttpProxyAgent({
          connect,
          // Explicit values ('' for none), so undici never reads the environment itself.
          httpProxy: proxy.http ?? '',
          httpsProxy: proxy.https ?? '',
          noProxy: proxy.noProxy ?? '',
        })
      : new Agent({ connect });
  return dispatcher.compose((dispatch) => (options, handler) => {
    const origin = new URL(String(options.origin));
    // The URL was checked when it was saved, by the serve of then: one that allowed http://
    // must not leave this one sending event data in the clear (as the addresses, checked again).
    if (origin.protocol === 'http:' && !policy.allowHttp) {
      throw new EgressRefusedError(
        "refused to deliver over http://: serve runs without --webhooks-allow-http; change the webhook's url to https://, or start serve with --webhooks-allow-http",
      );
    }
    const why = hostRefusal(origin.hostname, allow);
    if (why) throw new EgressRefusedError(`refused to deliver: ${why}`);
    return dispatch(options, handler);
  });
}
