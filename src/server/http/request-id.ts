/**
 * Request ids: a load balancer's `X-Request-Id` is kept when it is a plain token (so its logs
 * and ours name the same request), else a new one is made. A header is client input: anything
 * long or with characters beyond `A-Za-z0-9._:-` is not echoed into answers and logs.
 */
import { randomUUID } from 'node:crypto';

const SANE = /^[A-Za-z0-9._:-]{1,128}$/;

export const requestIdOf = (given: string | undefined): string =>
  given && SANE.test(given) ? given : randomUUID();
