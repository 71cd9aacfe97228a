/**
 * Versioning by media type: Accept picks the response version, Content-Type the request's.
 * No Accept → the oldest version; nothing acceptable → 406 listing what is supported.
 */
import type { Middleware } from 'koa';
import {
  type Endpoint,
  entryForMediaType,
  type Method,
  mediaTypeOf,
  offeredBy,
  type ServerKind,
  type VersionEntry,
  versionsOf,
} from '../../contract/versions.js';
import { AppError } from '../errors.js';
import type { AppState } from './state.js';

export const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];

/** Accept headers remembered per route (see negotiate). */
export const MAX_REMEMBERED_ACCEPTS = 64;

interface Range {
  type: string;
  q: number;
}

/** The media ranges of an Accept header, best first (stable for equal q). */
export function parseAccept(header: string): Range[] {
  return header
    .split(',')
    .map((part, index) => {
      const [type = '', ...params] = part.split(';').map((s) => s.trim());
      const qParam = params.find((p) => /^q=/i.test(p));
      const q = qParam ? Number(qParam.slice(2)) : 1;
      return { type: type.toLowerCase(), q: Number.isFinite(q) ? q : 0, index };
    })
    .filter((r) => r.type !== '' && r.q > 0)
    .sort((a, b) => b.q - a.q || a.index - b.index);
}

export function pickVersion(
  header: string | undefined,
  entries: VersionEntry[],
  vendor: string,
): VersionEntry | undefined {
  if (!header?.trim()) return entries[0];
  for (const range of parseAccept(header)) {
    if (range.type === '*/*' || range.type === 'application/*') return entries[0];
    const entry = entryForMediaType(entries, range.type, vendor);
    if (entry) return entry;
  }
  return undefined;
}

export interface NegotiateOptions {
  vendor: string;
  /** The route also takes the form encodings (PUT /users/{userId}). */
  forms?: boolean;
  /**
   * `platform` (serve --like-platform) offers only the real platform's versions and, as the
   * platform does, does not list them in a 406 or 415 message but repeats the type asked for.
   */
  kind?: ServerKind;
  /** The endpoint's versions, where they are not the registry's (a declaration of a test's). */
  versions?: readonly VersionEntry[];
}

export function negotiate(
  endpoint: Endpoint,
  method: Method,
  { vendor, forms = false, kind = 'roster', versions }: NegotiateOptions,
): Middleware<AppState> {
  const offered = (header: 'accept' | 'content-type') =>
    versionsOf(endpoint, method, header, versions).filter((e) => offeredBy(e, kind));
  const responses = offered('accept');
  const requests = offered('content-type');
  const list = (entries: VersionEntry[]) => entries.map((e) => mediaTypeOf(e, vendor));
  // The platform names no supported types, but repeats the one asked for (Accept, as it came).
  const supported = (types: string[], asked?: string) =>
    kind !== 'platform'
      ? `; supported: ${types.join(', ')}`
      : asked
        ? ` (asked for: ${asked})`
        : '';
  // Clients send the same few Accept headers again and again: each is parsed and matched once,
  // not per request (the CPU it saves: bench/README.md, "Figures from src/ comments"). Bounded,
  // so varied headers cannot grow it.
  const picked = new Map<string, VersionEntry | null>();
  const pick = (header: string) => {
    let entry = picked.get(header);
    if (entry === undefined) {
      entry = pickVersion(header, responses, vendor) ?? null;
      if (picked.size >= MAX_REMEMBERED_ACCEPTS) picked.clear();
      picked.set(header, entry);
    }
    return entry;
  };
  const contentTypes = new Map<VersionEntry, string>();
  return async (ctx, next) => {
    const accept = pick(ctx.get('Accept'));
    if (!accept) {
      throw new AppError(
        'notAcceptable',
        `none of the media types in Accept is supported by ${method} ${endpoint}${supported(list(responses), ctx.get('Accept'))}`,
      );
    }
    ctx.state.accept = accept;
    let deprecated = accept.stage === 'deprecated';
    if (requests.length > 0) {
      const type = ctx.get('Content-Type').split(';')[0]!.trim().toLowerCase();
      const request =
        forms && FORM_TYPES.includes(type)
          ? 'form'
          : type === ''
            ? requests[0]
            : entryForMediaType(requests, type, vendor);
      if (!request) {
        throw new AppError(
          'unsupportedMediaType',
          `Content-Type '${type}' is not supported by ${method} ${endpoint}${supported([...list(requests), ...(forms ? FORM_TYPES : [])])}`,
        );
      }
      ctx.state.contentType = request;
      if (request !== 'form' && request.stage === 'deprecated') deprecated = true;
    }
    if (deprecated) ctx.set('Deprecation', 'true');
    await next();
    if (ctx.body != null && ctx.status < 300) {
      // Koa's type setter looks the type up in the MIME database on every call (for a charset);
      // the header it makes for each version is the same every time, so it is kept.
      const known = contentTypes.get(accept);
      if (known !== undefined) {
        ctx.set('Content-Type', known);
      } else {
        ctx.type = mediaTypeOf(accept, vendor);
        contentTypes.set(accept, ctx.response.get('Content-Type') as string);
      }
    }
  };
}
