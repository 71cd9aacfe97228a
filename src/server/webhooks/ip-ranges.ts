/**
 * IP addresses as numbers, CIDR ranges, and which ranges a webhook may never reach: the egress
 * guard's table (egress.ts). Written out rather than Node's BlockList, which neither says which
 * rule matched (the refusal names it) nor sees an IPv4 address inside its IPv6 forms.
 */
import { isIPv4, isIPv6 } from 'node:net';

export interface Address {
  family: 4 | 6;
  value: bigint;
}

export interface Cidr extends Address {
  bits: number;
  /** As written, for messages. */
  text: string;
}

const WIDTH = { 4: 32, 6: 128 } as const;

function v4Value(s: string): bigint {
  return s.split('.').reduce((n, part) => (n << 8n) | BigInt(Number(part)), 0n);
}

function v6Value(s: string): bigint {
  let text = s;
  // A dotted IPv4 tail (::ffff:127.0.0.1) is two groups.
  const tail = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (tail) {
    const n = v4Value(tail[1]!);
    text = `${text.slice(0, tail.index)}${(n >> 16n).toString(16)}:${(n & 0xffffn).toString(16)}`;
  }
  const [head, rest] = text.split('::') as [string, string | undefined];
  const left = head ? head.split(':') : [];
  const right = rest ? rest.split(':') : [];
  const groups =
    rest === undefined
      ? left
      : [...left, ...Array(8 - left.length - right.length).fill('0'), ...right];
  return groups.reduce((n, g) => (n << 16n) | BigInt(Number.parseInt(g, 16)), 0n);
}

/** An IP address (IPv6 with or without brackets, no zone), or undefined for anything else. */
export function parseAddress(input: string): Address | undefined {
  const s = input.startsWith('[') && input.endsWith(']') ? input.slice(1, -1) : input;
  if (isIPv4(s)) return { family: 4, value: v4Value(s) };
  if (isIPv6(s) && !s.includes('%')) return { family: 6, value: v6Value(s) };
  return undefined;
}

export function showAddress(a: Address): string {
  if (a.family === 4) {
    return [24n, 16n, 8n, 0n].map((shift) => String((a.value >> shift) & 0xffn)).join('.');
  }
  const groups = [...Array(8).keys()].map((i) => (a.value >> BigInt(112 - 16 * i)) & 0xffffn);
  return groups
    .map((g) => g.toString(16))
    .join(':')
    .replace(/(^|:)0(:0)+(:|$)/, '::');
}

/** `10.0.0.0/8`, `fd00::/8`, or one address (`/32`, `/128`); an Error says what is wrong. */
export function parseCidr(text: string): Cidr {
  const [addr = '', bitsText, extra] = text.split('/');
  const a = parseAddress(addr);
  if (!a || extra !== undefined) {
    throw new Error(`'${text}' is not an IP range (like 10.0.0.0/8, 127.0.0.1 or fd00::/8)`);
  }
  const width = WIDTH[a.family];
  const bits = bitsText === undefined ? width : /^\d{1,3}$/.test(bitsText) ? Number(bitsText) : -1;
  if (bits < 0 || bits > width) {
    throw new Error(`'${text}': the prefix length of an IPv${a.family} range is 0 to ${width}`);
  }
  const host = width === bits ? 0n : (1n << BigInt(width - bits)) - 1n;
  if ((a.value & host) !== 0n) {
    const base = showAddress({ family: a.family, value: a.value & ~host });
    throw new Error(`'${text}' has bits set after the prefix; did you mean ${base}/${bits}?`);
  }
  return { ...a, bits, text };
}

export function contains(c: Cidr, a: Address): boolean {
  if (c.family !== a.family) return false;
  const shift = BigInt(WIDTH[c.family] - c.bits);
  return a.value >> shift === c.value >> shift;
}

const range = (text: string, what: string) => ({ cidr: parseCidr(text), what });

/** Ranges a webhook may not reach unless allowed; the first that matches names the refusal. */
const REFUSED = [
  range('0.0.0.0/32', 'the unspecified address'),
  range('0.0.0.0/8', "a 'this network' address (0.0.0.0/8)"),
  range('127.0.0.0/8', 'a loopback address'),
  range('10.0.0.0/8', 'a private address'),
  range('172.16.0.0/12', 'a private address'),
  range('192.168.0.0/16', 'a private address'),
  range('169.254.0.0/16', 'a link-local address (where cloud metadata services answer)'),
  range('100.64.0.0/10', 'a carrier-grade NAT address (100.64.0.0/10)'),
  range('224.0.0.0/4', 'a multicast address'),
  range('255.255.255.255/32', 'the broadcast address'),
  range('240.0.0.0/4', 'a reserved address (240.0.0.0/4)'),
  range('::/128', 'the unspecified address'),
  range('::1/128', 'a loopback address'),
  range('fe80::/10', 'a link-local address'),
  range('fc00::/7', 'a private (unique local) address'),
  range('fec0::/10', 'a private (site-local) address'),
  range('ff00::/8', 'a multicast address'),
];

/** IPv6 forms that carry an IPv4 address the packets end up at, and where it sits. */
const CARRIERS = [
  { cidr: parseCidr('::ffff:0:0/96'), form: 'an IPv4-mapped', shift: 0n },
  { cidr: parseCidr('::/96'), form: 'an IPv4-compatible', shift: 0n },
  { cidr: parseCidr('64:ff9b::/96'), form: 'a NAT64', shift: 0n },
  { cidr: parseCidr('2002::/16'), form: 'a 6to4', shift: 80n },
];

/** The IPv4 address inside an IPv6 form of it, with that form's name. */
export function embeddedV4(a: Address): { v4: Address; form: string } | undefined {
  if (a.family !== 6) return undefined;
  // :: and ::1 are in ::/96 but are themselves, not IPv4 addresses.
  if (a.value <= 1n) return undefined;
  const carrier = CARRIERS.find((c) => contains(c.cidr, a));
  if (!carrier) return undefined;
  return { v4: { family: 4, value: (a.value >> carrier.shift) & 0xffffffffn }, form: carrier.form };
}

/**
 * Why `a` may not be reached, or undefined when it may: in none of the refused ranges (nor is
 * the IPv4 address inside it), or inside one of `allowed`.
 */
export function refusalOf(a: Address, allowed: readonly Cidr[]): string | undefined {
  const inner = embeddedV4(a);
  if (allowed.some((c) => contains(c, a) || (inner && contains(c, inner.v4)))) return undefined;
  if (inner) {
    const what = REFUSED.find((r) => contains(r.cidr, inner.v4))?.what;
    if (what) return `${inner.form} form of ${showAddress(inner.v4)}, ${what}`;
  }
  return REFUSED.find((r) => contains(r.cidr, a))?.what;
}
