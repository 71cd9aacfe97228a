/** The lines --verbose shows per request (`onTrace`); none carries the token. */
import { STATUS_CODES } from 'node:http';
import { type ProxyUsed, redactUrl } from './errors.js';

export type Trace = (line: string) => void;

/**
 * Whole milliseconds since it was made. Only with a trace: the first performance.now() loads
 * perf_hooks, which a command without --verbose need not pay for.
 */
export function stopwatch(trace: Trace | undefined): () => number {
  if (!trace) return () => 0;
  const t0 = performance.now();
  return () => Math.round(performance.now() - t0);
}

export const requestLine = (method: string, href: string, via: ProxyUsed | undefined) =>
  `→ ${method} ${redactUrl(href)}${via ? ` via proxy ${via.proxy}` : ''}`;

export const answerLine = (status: number, ms: number, deprecated: boolean) =>
  `← ${status} ${STATUS_CODES[status] ?? ''} ${ms} ms${deprecated ? ' (deprecated version)' : ''}`;

export const failureLine = (code: string | undefined, ms: number) =>
  `← ${code ?? 'error'} ${ms} ms`;

export const stepLine = (mediaType: string | undefined) => `  stepping down to ${mediaType}`;

export const vendorLine = (vendor: string) => `  media types of vendor '${vendor}'`;
