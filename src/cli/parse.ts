/** Flag value parsers: each throws a usage error that names the flag and shows a valid value. */
import { InvalidArgumentError } from 'commander';
import {
  LISTABLE_STATUSES,
  type ListableStatus,
  parseStatusList,
  SORT_KEYS,
} from '../contract/user.js';

const UNITS: Record<string, number> = {
  '': 1,
  b: 1,
  k: 1e3,
  kb: 1e3,
  kib: 1024,
  m: 1e6,
  mb: 1e6,
  mib: 1024 ** 2,
  g: 1e9,
  gb: 1e9,
  gib: 1024 ** 3,
  t: 1e12,
  tb: 1e12,
  tib: 1024 ** 4,
};

/** `500MB`, `1GiB`, `1048576` → bytes. */
export function parseSize(value: string): number {
  const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(value.trim());
  const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
  if (!m || unit === undefined || Number(m[1]) <= 0) {
    throw new InvalidArgumentError(`expected a size such as 500MB or 1GiB, got '${value}'`);
  }
  return Math.floor(Number(m[1]) * unit);
}

/** A storage quota: a size, or `none` (null) for the server's default. */
export function parseQuota(value: string): number | null {
  return value.trim().toLowerCase() === 'none' ? null : parseSize(value);
}

/** A duration in seconds above 0 (fractions allowed): `--timeout 90`. */
export function parsePositiveSeconds(value: string): number {
  const n = Number(value);
  if (!/^\d+(\.\d+)?$/.test(value.trim()) || !(n > 0)) {
    throw new InvalidArgumentError(`expected a number of seconds above 0, got '${value}'`);
  }
  return n;
}

export function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) {
    throw new InvalidArgumentError(`expected a port number 0-65535, got '${value}'`);
  }
  return n;
}

export function parsePositiveInt(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) < 1) {
    throw new InvalidArgumentError(`expected a whole number of at least 1, got '${value}'`);
  }
  return Number(value);
}

export function parseNonNegativeInt(value: string): number {
  if (!/^\d+$/.test(value)) {
    throw new InvalidArgumentError(`expected a whole number of at least 0, got '${value}'`);
  }
  return Number(value);
}

/** `--status`: `activated,pending`, or `all` for every live status (`users list` and `export`). */
export function parseStatuses(value: string): ListableStatus[] {
  const statuses = parseStatusList(value, { all: true });
  if (statuses === undefined) {
    throw new InvalidArgumentError(
      `expected ${LISTABLE_STATUSES.join(', ')} (comma-separated) or all, got '${value}'`,
    );
  }
  return statuses;
}

/**
 * `--sort`: one key and direction (`lastName_DESC`), filled with a second key as the service
 * wants two (`lastName_DESC_firstName_ASC`), or both given as on the wire.
 */
export function parseSort(value: string): string {
  const m = /^(\w+?)_(ASC|DESC)(?:_(\w+?)_(ASC|DESC))?$/i.exec(value.trim());
  const keys = SORT_KEYS as readonly string[];
  const bad = m && [m[1], m[3]].find((k) => k !== undefined && !keys.includes(k));
  if (!m || bad) {
    throw new InvalidArgumentError(
      `expected KEY_ASC or KEY_DESC (optionally twice), KEY one of ${SORT_KEYS.join(', ')}; got '${value}'`,
    );
  }
  const [, k1, d1, k2, d2] = m;
  if (k2) return `${k1}_${d1!.toUpperCase()}_${k2}_${d2!.toUpperCase()}`;
  const second = k1 === 'lastName' ? 'firstName' : 'lastName';
  return `${k1}_${d1!.toUpperCase()}_${second}_ASC`;
}
