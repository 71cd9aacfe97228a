/** Flag value parsers: each throws a usage error that names the flag and shows a valid value. */
import { InvalidArgumentError } from 'commander';

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
