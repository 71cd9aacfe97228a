/**
 * Public ids and CDN paths. publicID = `<tenant>/<branch>/<mediumId>/<fileName>`; the preview
 * lives at `<tenant>/<branch>/<mediumId>/t_preview/<name>.<ext>`. The catch-all tenant's host `*`
 * is written `_default` in paths: `*` is a wildcard to shells, globbing CDN rules and caches,
 * and `_` can never start a tenant host name, so the segment cannot collide with a real tenant.
 */

import { PREVIEW } from '../../contract/medium.js';
import { DEFAULT_TENANT } from '../../store/types.js';

export const DEFAULT_TENANT_SEGMENT = '_default';

export const tenantSegment = (host: string) =>
  host === DEFAULT_TENANT ? DEFAULT_TENANT_SEGMENT : host;

export interface MediumPlace {
  tenantHost: string;
  branchName: string;
  id: string;
  fileName: string;
}

export const publicIdOf = (m: MediumPlace) =>
  `${tenantSegment(m.tenantHost)}/${m.branchName}/${m.id}/${m.fileName}`;

/** The preview's file name: the original's stem with the preview format's extension. */
export function previewNameOf(fileName: string, format: string): string {
  const dot = fileName.lastIndexOf('.');
  const stem = dot > 0 ? fileName.slice(0, dot) : fileName;
  return `${stem}.${format}`;
}

export const previewPathOf = (m: MediumPlace, format: string) =>
  `${tenantSegment(m.tenantHost)}/${m.branchName}/${m.id}/${PREVIEW}/${previewNameOf(m.fileName, format)}`;

/** A path as a URL path: every segment percent-encoded, the slashes kept. */
export const encodePath = (path: string) => path.split('/').map(encodeURIComponent).join('/');
