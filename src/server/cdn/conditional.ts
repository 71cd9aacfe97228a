/** HTTP range and validator rules for the CDN route (RFC 9110 §13–14), kept pure for tests. */

export type ByteRange = { start: number; end: number };

/**
 * The one byte range a `Range` header asks for: a range, `unsatisfiable` (→ 416), or undefined
 * when the header is absent, malformed or asks for several ranges (→ the whole file, 200).
 */
export function parseRange(
  header: string | undefined,
  size: number,
): ByteRange | 'unsatisfiable' | undefined {
  const m = header ? /^bytes=(\d*)-(\d*)$/.exec(header.trim()) : null;
  if (!m || (m[1] === '' && m[2] === '')) return undefined;
  const [from, to] = [m[1]!, m[2]!];
  if (from === '') {
    const suffix = Number(to);
    if (suffix === 0 || size === 0) return 'unsatisfiable';
    return { start: Math.max(0, size - suffix), end: size - 1 };
  }
  const start = Number(from);
  if (to !== '' && Number(to) < start) return undefined;
  if (start >= size) return 'unsatisfiable';
  return { start, end: to === '' ? size - 1 : Math.min(Number(to), size - 1) };
}

/** If-None-Match against a strong ETag (weak comparison, as RFC 9110 asks for this header). */
export function noneMatch(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const opaque = etag.replace(/^W\//, '');
  return header.split(',').some((t) => t.trim().replace(/^W\//, '') === opaque);
}

/** If-Range: the range applies only when the validator is our (strong) ETag or not newer date. */
export function rangeStillValid(
  ifRange: string | undefined,
  etag: string,
  lastModified: Date,
): boolean {
  if (!ifRange) return true;
  const value = ifRange.trim();
  if (value.startsWith('"') || value.startsWith('W/')) return value === etag;
  const date = Date.parse(value);
  return Number.isFinite(date) && Math.floor(lastModified.getTime() / 1000) * 1000 <= date;
}

/** If-Modified-Since, used only when If-None-Match is absent. */
export function notModifiedSince(header: string | undefined, lastModified: Date): boolean {
  const since = header ? Date.parse(header) : Number.NaN;
  return Number.isFinite(since) && Math.floor(lastModified.getTime() / 1000) * 1000 <= since;
}
