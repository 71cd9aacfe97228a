/** How media print: the columns of a table or CSV, the fields `--fields` may name. */
import type { Medium } from '../../../contract/medium.js';
import { PREVIEW } from '../../../contract/medium.js';
import type { Deps, GlobalOptions } from '../../context.js';
import { parseFields } from '../../output/fields.js';
import {
  type Column,
  columnNames,
  FORMATS,
  type Format,
  forPeople,
  resolveFormat,
  viewOf,
} from '../../output/render.js';
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

/** People see sizes (22.1 kB); the formats for programs keep the exact byte count. */
export function mediumColumns(format: Format): Column<Medium>[] {
  return [
    { header: 'id', path: 'id', value: (m) => m.id },
    // On a narrow terminal the name stays longest after the id; dimensions and preview go first.
    { header: 'name', path: 'fileName', keep: 2, value: (m) => m.fileName },
    { header: 'type', path: 'resourceInfo.type', keep: 1, value: (m) => m.resourceInfo.type },
    forPeople(format)
      ? {
          header: 'size',
          path: 'resourceInfo.bytes',
          keep: 1,
          value: (m) => formatBytes(m.resourceInfo.bytes),
        }
      : { header: 'bytes', path: 'resourceInfo.bytes', value: (m) => m.resourceInfo.bytes },
    { header: 'dimensions', value: dimensions },
    { header: 'preview', value: (m) => (m.transformations?.[PREVIEW] ? 'yes' : 'no') },
  ];
}

/** `--fields` names besides paths: the headers of every format's columns (size and bytes). */
const MEDIUM_FIELD_NAMES = columnNames(FORMATS.flatMap(mediumColumns));

/** `--fields` in a media command's help: names and paths of a medium. */
export const MEDIUM_FIELDS_EXAMPLE = 'id,name,size,resourceInfo.width';

/** The view for a media command: `-o` resolved against the TTY, `--fields` checked. */
export function mediumView(
  globals: GlobalOptions,
  fields: string | undefined,
  deps: Deps,
  allow: { ids?: boolean } = {},
) {
  const format = resolveFormat(globals.output, deps.io, allow);
  const paths =
    fields === undefined ? undefined : parseFields(fields, MEDIUM_FIELDS, MEDIUM_FIELD_NAMES);
  return viewOf(format, mediumColumns(format), paths);
}

/** `(image, 22.1 kB, 640x480)`: what a medium is, for notices. */
export function describeMedium(m: Medium): string {
  const facts = [m.resourceInfo.type, formatBytes(m.resourceInfo.bytes), dimensions(m)];
  return `(${facts.filter(Boolean).join(', ')})`;
}
