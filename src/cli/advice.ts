/**
 * What a person at the terminal reads for a client error: the client's own message (what went
 * wrong) with the CLI's advice (which command, flag or variable fixes it) where it belongs.
 * The client knows nothing of `roster login`, `--profile` or ROSTER_TOKEN; this file does.
 */

import {
  ApiError,
  MediaAuthError,
  NetworkError,
  PermissionError,
  RequiredFieldsError,
  ResponseFormatError,
} from '../client/errors.js';
import type { FieldIssue } from '../contract/errors.js';
import { IDENTITY_NAMES } from '../contract/user-fields.js';

const HINTS: Record<number, string> = {
  400: 'Fix the fields named above and try again.',
  401: 'The token was rejected (missing, invalid, revoked or without the needed scope): run `roster login`, or check --profile / ROSTER_TOKEN.',
  403: "The token may not do this on its branch: create a token with the needed scopes (`roster tokens create --scopes …`) on the service's side.",
  404: 'Check the id, and that the token belongs to the right branch.',
  406: 'The service offers none of the media types this client reads, even after stepping down: check the vendor word (`roster login --vendor WORD`), or update roster.',
  413: 'The body is larger than the service accepts.',
  415: 'The service does not accept this content type.',
  429: 'The service is rate-limiting this token: wait a little, or lower --concurrency.',
};

/** What to do about an error answer: by status, refined by what it is about (URL, details). */
function hintFor(status: number, url: string, details: FieldIssue[]): string {
  const parsed = URL.canParse(url) ? new URL(url) : undefined;
  const path = parsed?.pathname ?? url;
  if (status === 404 && parsed && !/\/api(\/|$)/.test(path)) {
    return `The base URL should end with /api: did you mean ${parsed.origin}/api?`;
  }
  if (status === 404 && /\/media(\/|$)/.test(path)) {
    return 'Check the medium id (`roster media list`), and that the token belongs to the right branch.';
  }
  if (status === 404 && /\/users(\/|$)/.test(path)) {
    return 'Check the id or externalId (`roster users list --status all`), and that the token belongs to the right branch.';
  }
  if (status === 409) {
    const unique = details.find((d) => IDENTITY_NAMES.has(d.field));
    if (unique) return `Another user of this tenant already has this ${unique.field}.`;
    if (details.some((d) => d.field === 'status')) {
      return 'A user who never signed up is activated by giving them a secret (one-time password): --set secret=… or users invite --secret.';
    }
    return '';
  }
  if (HINTS[status]) return HINTS[status];
  if (status >= 500) {
    return 'The service failed; try again later. If it persists, report it with the --verbose output.';
  }
  return '';
}

/**
 * A valid token without the permission a request needs: which one, and how to get a token with
 * it. Logging in again with the same token would not help.
 */
function permissionAdvice(err: PermissionError): string {
  const what = err.scope ? `the ${err.scope} permission` : 'a permission';
  const has = err.tokenScopes ? ` (it has ${err.tokenScopes.join(', ') || 'none'})` : '';
  const scopes = err.scope ? [...new Set([...(err.tokenScopes ?? []), err.scope])].join(',') : '…';
  return (
    `The token is valid${has} but lacks ${what}, which this request needs. ` +
    `Use a token that has it: on a local service create one with \`roster tokens create --scopes ${scopes}\`; on the platform, ask its admin for one.`
  );
}

function apiMessage(err: ApiError): string {
  if (err instanceof PermissionError) return `${err.message}\n${permissionAdvice(err)}`;
  const lines = [err.message];
  const hint = hintFor(err.status, err.url, err.details);
  if (hint) lines.push(hint);
  if (err.status === 403)
    lines.push('Then save the new token with `roster login --token <token>`.');
  if (err.retryAfterMs !== undefined && err.status === 429) {
    lines.push(`The service asked to retry after ${Math.ceil(err.retryAfterMs / 1000)} s.`);
  }
  return lines.join('\n');
}

/** Advice that goes after what happened and before the attempts and the request. */
function networkAdvice(err: NetworkError): string {
  if (err.proxied) return '';
  if (err.code === 'UND_ERR_HEADERS_TIMEOUT' || err.code === 'UND_ERR_BODY_TIMEOUT') {
    return 'The service may be overloaded; try again later, or allow longer with --timeout SECONDS (ROSTER_TIMEOUT).';
  }
  if (err.code === 'ECONNREFUSED') {
    return 'Is the service running (`roster serve`), and is the base URL right?';
  }
  return '';
}

function mediaAuthAdvice(err: MediaAuthError): string {
  const host = new URL(err.url).host;
  if (err.withheld === 'not-listed') {
    return (
      `If the platform serves its media from ${host} and you trust that host with the token, turn cdnAuth on for it: ` +
      `\`roster profiles cdn-auth ${host}\` (or ROSTER_CDN_AUTH=${host}); see README "Authenticated media URLs".`
    );
  }
  if (err.withheld === undefined) {
    return 'Check that the token may read media (the media:read scope: `roster auth status`) and that it belongs to this deployment.';
  }
  return '';
}

const GATEWAY_STATUSES = new Set([502, 503, 504]);

/** The text to show for `err`: a client error with the CLI's advice, anything else as it is. */
export function userMessage(err: unknown): string {
  if (err instanceof ApiError) return apiMessage(err);
  if (err instanceof NetworkError) {
    const advice = networkAdvice(err);
    if (!advice) return err.message;
    return `${err.summary} ${advice}${err.message.slice(err.summary.length)}`;
  }
  if (err instanceof MediaAuthError) {
    const advice = mediaAuthAdvice(err);
    return advice ? `${err.message} ${advice}` : err.message;
  }
  if (err instanceof ResponseFormatError) {
    // A gateway's own page (502, 503, 504): the URL reached a balancer or proxy, not the API.
    if (GATEWAY_STATUSES.has(err.status)) {
      return `${err.message} Something in front of the service (a load balancer or proxy) could not reach it: the service may be stopped or restarting; try again, or check that \`roster serve\` runs behind it.`;
    }
    return `${err.message} This does not look like the Roster API: check the base URL (\`--base-url\` or the profile); it must end with /api, e.g. https://tenant.example.com/api.`;
  }
  if (err instanceof RequiredFieldsError) {
    return `${err.message}; give them, or set defaults for the profile (\`roster profiles set --role ROLE --locale xx_YY\`)`;
  }
  return (err as Error)?.message ?? String(err);
}
