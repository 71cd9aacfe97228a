/** How media print: the columns of a table or CSV, the fields `--fields` may name. */
import type { Medium } from '../../../contract/medium.js';
import { PREVIEW } from '../../../contract/medium.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { parseFields } from '../../output/fields.js';
import { type Column, type Format, resolveFormat, viewOf } from '../../output/render.js';
import { formatBytes } from '../../output/transfer.js';

/** The top-level keys of a Medium: the first segment of every `--fields` path. */
export const MEDIUM_FIELDS = [
  'id',
  'ownerID',
  'ownerType',
  'publicID',
  'resourceInfo',
  'transformations',
  'fileName',
  'entityType',
] as const;

const dimensions = (m: Medium) => {
  const { width, height } = m.resourceInfo;
  return width !== undefined && height !== undefined ? `${width}x${height}` : '';
};

/** A table shows sizes for people (22.1 kB); CSV keeps the exact byte count. */
export function mediumColumns(format: Format): Column<Medium>[] {
  return [
    { header: 'id', value: (m) => m.id },
    // On a narrow terminal the name stays longest after the id; dimensions and preview go first.
    { header: 'name', keep: 2, value: (m) => m.fileName },
    { header: 'type', keep: 1, value: (m) => m.resourceInfo.type },
    format === 'table'
      ? { header: 'size', keep: 1, value: (m) => formatBytes(m.resourceInfo.bytes) }
      : { header: 'bytes', value: (m) => m.resourceInfo.bytes },
    { header: 'dimensions', value: dimensions },
    { header: 'preview', value: (m) => (m.transformations?.[PREVIEW] ? 'yes' : 'no') },
  ];
}

/** The view for a media command: `-o` resolved against the TTY, `--fields` checked. */
export function mediumView(
  globals: GlobalOptions,
  fields: string | undefined,
  deps: Deps,
  allow: { ids?: boolean } = {},
) {
  const format = resolveFormat(globals.output, deps.io, allow);
  const paths = fields === undefined ? undefined : parseFields(fields, MEDIUM_FIELDS);
  return viewOf(format, mediumColumns(format), paths);
}

/** `(image, 22.1 kB, 640x480)`: what a medium is, for notices. */
export function describeMedium(m: Medium): string {
  const facts = [m.resourceInfo.type, formatBytes(m.resourceInfo.bytes), dimensions(m)];
  return `(${facts.filter(Boolean).join(', ')})`;
}
