/**
 * Who may fetch a file from /cdn: anyone holding a valid signed URL for exactly that path, or a
 * request with a live token of the file's branch that has media:read. A broken or expired
 * signature is 403 and never falls back to "public"; other branches' files do not exist (404).
 * Without a signer (serve --cdn-token-only) only the token counts: a signature is ignored.
 */
import type { Context } from 'koa';
import type { Store } from '../../store/store.js';
import { AppError } from '../errors.js';
import { tokenOfHeader } from '../http/auth.middleware.js';
import type { UrlSigner } from './signing.js';

export type Access = { kind: 'signed'; expires: number } | { kind: 'token'; branchId: number };

const REQUIRES_AUTH =
  'this file is private: use the signed URL from the medium (resourceInfo.url) or send "Authorization: Basic <API token>"';
const REQUIRES_TOKEN =
  'media URLs of this service need authentication: send "Authorization: Basic <API token>" (a token of the medium\'s branch with media:read)';

export function cdnAccess(store: Store, signer: UrlSigner | undefined) {
  return async (ctx: Context, path: string): Promise<Access> => {
    const { expires, signature } = ctx.query;
    const signed = signer !== undefined && (expires !== undefined || signature !== undefined);
    const verdict = signed ? signer.verify(path, expires, signature) : undefined;
    if (verdict === 'valid') return { kind: 'signed', expires: Number(expires) };

    const header = ctx.get('Authorization');
    if (!header) {
      if (!signer) throw new AppError('notLoggedIn', REQUIRES_TOKEN);
      if (!signed) throw new AppError('notLoggedIn', REQUIRES_AUTH);
      throw new AppError(
        'accessDenied',
        verdict === 'expired'
          ? 'this signed URL has expired; fetch the medium again for a fresh URL'
          : 'the signature of this URL is not valid for this file',
      );
    }
    const given = tokenOfHeader(header);
    // As on the API, a token counts only on its own tenant's host, and only one made for it.
    const credentials =
      given === undefined
        ? undefined
        : await store.credentials.resolve(ctx.hostname.toLowerCase(), given);
    const token = credentials?.token;
    if (!token) {
      throw new AppError(
        'notLoggedIn',
        'the API token is invalid, revoked or not valid for this host; check the token and the URL',
      );
    }
    if (!token.channels.includes('api')) {
      throw new AppError(
        'notLoggedIn',
        `the token '${token.name}' is made for SCIM only; media need a token made for the REST API`,
      );
    }
    if (!token.scopes.includes('media:read')) {
      throw new AppError(
        'notLoggedIn',
        `the token '${token.name}' lacks the media:read permission`,
      );
    }
    return { kind: 'token', branchId: token.branchId };
  };
}
