/**
 * `-o yaml`: the JSON shape as YAML, written so that YAML 1.1 readers (PyYAML, Ruby) and 1.2
 * readers agree: strings such as `yes`, `no`, `on` or `2024-01-01` are quoted. Like JSON output,
 * inert on a terminal: a string holding DEL, a C1 control or a bidi override is double-quoted
 * with those characters as `\u` escapes (the yaml package leaves them raw).
 */
import { Document, isScalar, visit } from 'yaml';

const RAW = /[\u007f-\u009f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]/;
const RAW_ALL = new RegExp(RAW.source, 'g');

export function toYaml(value: unknown): string {
  const doc = new Document(value, { version: '1.1' });
  let raw = false;
  visit(doc, {
    Scalar(_key, node) {
      if (isScalar(node) && typeof node.value === 'string' && RAW.test(node.value)) {
        node.type = 'QUOTE_DOUBLE';
        raw = true;
      }
    },
  });
  const text = doc.toString({ lineWidth: 0 });
  // Only double-quoted scalars hold them now, where `\uXXXX` is an escape.
  return raw
    ? text.replace(RAW_ALL, (c) => `\\u${(c.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`)
    : text;
}
