/**
 * What the client throws. Each message says what went wrong; what to do about it in terms of
 * the CLI's commands, flags and variables is the CLI's to add (cli/advice.ts), from the fields
 * here. The CLI picks the exit code from the class and `status` (cli/main.ts).
 */
import { STATUS_CODES } from 'node:http';
import type { ErrorEnvelope, FieldIssue } from '../contract/errors.js';
import { safeText } from '../contract/text-safe.js';

/** Base class of every error the client throws on purpose (anything else is a bug). */
/** Query values that must not reach a message or trace (signed CDN URLs, tokens in links). */
const SECRET_PARAMS = /([?&](?:signature|token|access_token)=)[^&#]*/gi;
export const redactUrl = (url: string) => url.replace(SECRET_PARAMS, '$1REDACTED');

export class ClientError extends Error {
  /** The HTTP method of the failed request. */
  readonly method: string;
  /** The request URL, with signatures and tokens in its query redacted. */
  readonly url: string;

  constructor(message: string, method: string, url: string, options?: ErrorOptions) {
    super(message, options);
    this.name = new.target.name;
    this.method = method;
    this.url = redactUrl(url);
  }
}

/**
 * The service answered with an error status. Fields come from the error envelope
 * (`{identifier, statusCode, message, type, details}`) when the body had that shape.
 */
export class ApiError extends ClientError {
  /** The HTTP status of the answer. */
  readonly status: number;
  /** The envelope's numeric identifier (40102, 40408, …), if the body was an envelope. */
  readonly identifier: number | undefined;
  /** The envelope's type (`NotFoundException`, …), if the body was an envelope. */
  readonly type: string | undefined;
  /** The service's own message, without the hint. */
  readonly serverMessage: string;
  /** Field problems of a 400. */
  readonly details: FieldIssue[];
  /** How long the service asked to wait (429/503 with Retry-After), in ms. */
  readonly retryAfterMs: number | undefined;
  /** The error envelope as it came, if the body was one. */
  readonly envelope: ErrorEnvelope | undefined;
  /** The service said the write may have been made all the same (Roster-Outcome: unknown). */
  readonly outcomeUnknown: boolean;

  constructor(init: {
    status: number;
    method: string;
    url: string;
    envelope?: ErrorEnvelope;
    retryAfterMs?: number;
    outcomeUnknown?: boolean;
  }) {
    const { status, method, url, envelope } = init;
    const serverMessage = envelope?.message ?? STATUS_CODES[status] ?? 'Error';
    const details = envelope?.details ?? [];
    // The service's words are data: a newline or escape in them must not reach a terminal raw.
    const lines = [
      `${safeText(serverMessage)} (${status}${envelope ? ` ${safeText(envelope.type)}` : ''}, ${method} ${redactUrl(url)})`,
      ...details.map((d) => `  ${safeText(d.field)}: ${safeText(d.message)}`),
    ];
    super(lines.join('\n'), method, url);
    this.status = status;
    this.identifier = envelope?.identifier;
    this.type = envelope?.type;
    this.serverMessage = serverMessage;
    this.details = details;
    this.retryAfterMs = init.retryAfterMs;
    this.envelope = envelope;
    this.outcomeUnknown = init.outcomeUnknown ?? false;
  }
}

/**
 * A 401 to a token that otherwise works (`GET /api/branch` answered it): not a login problem,
 * the token lacks a permission (scope) this request needs. The service answers some missing
 * permissions with 401, as the platform does.
 */
export class PermissionError extends ApiError {
  /** The scope the request needs, where the contract's table knows the request. */
  readonly scope: string | undefined;
  /** The token's scopes, where the service lists them (Roster does; the platform does not). */
  readonly tokenScopes: readonly string[] | undefined;

  constructor(from: ApiError, facts: { scope?: string; tokenScopes?: readonly string[] }) {
    super({
      status: from.status,
      method: from.method,
      url: from.url,
      envelope: from.envelope,
      retryAfterMs: from.retryAfterMs,
    });
    this.scope = facts.scope;
    this.tokenScopes = facts.tokenScopes;
  }
}

/**
 * The answer was not what the API sends: not JSON, or JSON that does not parse. Usually the
 * base URL points at a web site or proxy instead of the API.
 */
export class ResponseFormatError extends ClientError {
  readonly status: number;
  readonly contentType: string | undefined;

  constructor(init: {
    status: number;
    method: string;
    url: string;
    contentType: string | undefined;
    problem?: string;
    title?: string;
  }) {
    const what = init.problem ?? `${init.contentType ?? 'a body without a content type'}, not JSON`;
    const title = init.title ? ` ("${init.title}")` : '';
    super(
      `${init.method} ${redactUrl(init.url)} answered ${init.status} with ${what}${title}.`,
      init.method,
      init.url,
    );
    this.status = init.status;
    this.contentType = init.contentType;
  }
}

/** An HTML error page on the way through a proxy is most likely the proxy's: says so. */
export function noteProxy(error: ClientError, via: ProxyUsed, url: URL) {
  if (!(error instanceof ResponseFormatError)) return;
  error.message += ` The request went through ${via.proxy} (${via.source}): the answer may be the proxy's; list ${url.hostname} in NO_PROXY if it is reachable without the proxy.`;
}

/** The proxy a failed request went through (HTTPS_PROXY, HTTP_PROXY). */
export interface ProxyUsed {
  /** The proxy's origin, never its credentials. */
  proxy: string;
  /** The variable it came from. */
  source: string;
  /** The proxy's own refusal (the status it answered a CONNECT, or 407), if that was it. */
  status?: number;
}

function describeProxied(code: string | undefined, url: URL, via: ProxyUsed): string {
  const text = proxiedText(code, url, via);
  return text[0]!.toUpperCase() + text.slice(1);
}

function proxiedText(code: string | undefined, url: URL, via: ProxyUsed): string {
  const proxy = `the proxy ${via.proxy} (${via.source})`;
  const bypass = `or list ${url.hostname} in NO_PROXY if it is reachable without the proxy`;
  if (via.status === 407) {
    return `${proxy} asks for a user name and password (407): put them in ${via.source}, as http://user:password@proxy.example.com:3128 (percent-encode special characters).`;
  }
  if (via.status !== undefined) {
    return `${proxy} refused to connect to ${url.host} (it answered ${via.status}): check that the proxy lets you reach that host and port, ${bypass}.`;
  }
  switch (code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${proxy}: connection refused. Check ${via.source}, ${bypass}.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not resolve the host name of ${proxy} (${code}). Check ${via.source}.`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${proxy} timed out. Check ${via.source}, ${bypass}.`;
    default:
      return `The request to ${url.origin} through ${proxy} failed (${code ?? 'unknown error'}).`;
  }
}

function describeNetwork(code: string | undefined, url: URL, timeoutMs: number): string {
  switch (code) {
    case 'ECONNREFUSED':
      return `Could not connect to ${url.origin}: connection refused.`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return `Could not resolve the host name ${url.hostname} (${code}). Check the base URL and your network or DNS.`;
    case 'UND_ERR_CONNECT_TIMEOUT':
      return `Connecting to ${url.origin} timed out. Check the base URL, a firewall or VPN.`;
    case 'ERR_SSL_WRONG_VERSION_NUMBER':
    case 'EPROTO':
      return `${url.origin} speaks plain HTTP, not HTTPS: use ${url.href.replace(/^https:/, 'http:').replace(/\/users.*$|\/media.*$/, '')} as the base URL (or put TLS in front of the service).`;
    case 'UND_ERR_HEADERS_TIMEOUT':
    case 'UND_ERR_BODY_TIMEOUT':
      return `No answer from ${url.origin}: no answer within ${timeoutMs / 1000} s (timeout).`;
    case 'UND_ERR_SOCKET':
    case 'ECONNRESET':
    case 'EPIPE':
      return `The connection to ${url.origin} closed before the answer was complete (${code}). Try again; if it persists, check a proxy in between or the service's logs.`;
    default:
      return `The request to ${url.origin} failed (${code ?? 'unknown error'}).`;
  }
}

/** The request never got a complete answer: refused, unresolvable, reset or timed out. */
export class NetworkError extends ClientError {
  /** The system or undici error code (ECONNREFUSED, ENOTFOUND, UND_ERR_HEADERS_TIMEOUT, …). */
  readonly code: string | undefined;
  /** How many attempts were made, retries included. */
  readonly attempts: number;
  /** What happened, without the attempts and the request that end the message. */
  readonly summary: string;
  /** The proxy in between failed, not the service (so advice is about the proxy). */
  readonly proxied: boolean;

  constructor(init: {
    method: string;
    url: string;
    code: string | undefined;
    cause: unknown;
    attempts: number;
    timeoutMs: number;
    /** Set when the request went through a proxy. */
    via?: ProxyUsed;
  }) {
    const tries = init.attempts > 1 ? ` (${init.attempts} attempts)` : '';
    const url = new URL(init.url);
    // Timeouts and resets past the proxy are the service's; the rest are the proxy's.
    const own = Boolean(
      init.via &&
        (init.via.status !== undefined ||
          !/^UND_ERR_(HEADERS|BODY)_TIMEOUT$|^UND_ERR_SOCKET$|^ECONNRESET$|^EPIPE$/.test(
            init.code ?? '',
          )),
    );
    const text = own
      ? describeProxied(init.code, url, init.via!)
      : describeNetwork(init.code, url, init.timeoutMs);
    super(`${text}${tries} [${init.method} ${redactUrl(init.url)}]`, init.method, init.url, {
      cause: init.cause,
    });
    this.code = init.code;
    this.attempts = init.attempts;
    this.summary = text;
    this.proxied = own;
  }
}

/**
 * A media URL answered 401 or 403: the platform serves media only to authenticated requests.
 * Says whether the token was sent, and if not, why not and how to allow it (cdnAuth).
 */
export class MediaAuthError extends ClientError {
  readonly status: number;
  /** Whether the request carried the token. */
  readonly tokenSent: boolean;
  /** Why the token was not sent, when it was not (see the constructor). */
  readonly withheld: 'not-listed' | 'not-https' | 'redirect' | undefined;

  constructor(init: {
    status: number;
    url: string;
    /** The API's origin (where the token always goes). */
    apiOrigin: string;
    /**
     * Why the token was not sent: the host is not allowed (cdnAuth), it is allowed but the URL
     * is plain http, or a redirect led to another origin. Undefined: it was sent.
     */
    withheld?: 'not-listed' | 'not-https' | 'redirect';
    /** The service's own message, when it sent the error envelope. */
    serverMessage?: string;
    cause?: unknown;
  }) {
    const host = new URL(init.url).host;
    const head = `GET ${redactUrl(init.url)} answered ${init.status}: this media URL needs authentication.`;
    let text: string;
    switch (init.withheld) {
      case 'not-listed':
        text = `${head} Roster sends the API token to the API's origin (${init.apiOrigin}) only, not to ${host}.`;
        break;
      case 'not-https':
        text = `${head} cdnAuth allows ${host}, but this URL is plain http: the token goes to another origin than the API's only over https.`;
        break;
      case 'redirect':
        text = `${head} It was reached through a redirect to another origin, and the token never follows a redirect to another origin (cdnAuth allows hosts for the media URLs the service gives, not for where they redirect).`;
        break;
      default: {
        const said = init.serverMessage ? `: ${safeText(init.serverMessage)}` : '';
        text = `${head} It refused the API token${said}.`;
      }
    }
    super(text, 'GET', init.url, { cause: init.cause });
    this.status = init.status;
    this.tokenSent = init.withheld === undefined;
    this.withheld = init.withheld;
  }
}

/**
 * The media type the service takes for this request requires fields the body lacks: the real
 * platform creates users as `user-invite.v2`, which requires `role` and `config.locale`.
 */
export class RequiredFieldsError extends ClientError {
  /** The missing fields, as dotted paths (`role`, `config.locale`). */
  readonly fields: string[];
  /** The media type that requires them. */
  readonly mediaType: string;

  constructor(init: { fields: string[]; mediaType: string; method: string; url: string }) {
    super(
      `the service takes this request as ${init.mediaType}, which requires ${init.fields.join(' and ')}`,
      init.method,
      init.url,
    );
    this.fields = init.fields;
    this.mediaType = init.mediaType;
  }
}

/** Connection failures before a request reached the service, and a service that stopped answering. */
const SERVICE_UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'UND_ERR_CONNECT_TIMEOUT',
  'UND_ERR_HEADERS_TIMEOUT',
  'UND_ERR_BODY_TIMEOUT',
]);

/**
 * Whether a failure in a run of many requests (import rows, ids of a batch, uploads) would fail
 * every other request too, so the run stops rather than grind through them: the token refused,
 * the service unreachable or not answering (after the client's retries), an answer that is not
 * the API's, a field every create needs, or a bug. One item's own failure does not stop it:
 * an error answer about that item (404, 409, 400, 413…), its connection reset mid-answer (the
 * next request connects anew, and a service that has gone is then refused, which stops the
 * run), a proxy's error page about that request (413, 5xx), its local file unreadable.
 */
export function stopsRun(err: unknown): boolean {
  if (err instanceof ApiError) return err.status === 401 || err.status === 403;
  if (err instanceof NetworkError) return SERVICE_UNREACHABLE.has(err.code ?? '');
  if (err instanceof ResponseFormatError) return !(err.status === 413 || err.status >= 500);
  if (err instanceof ClientError) return true;
  const local = err as NodeJS.ErrnoException | undefined;
  return !(local?.syscall && local.path);
}
