import type { ParameterizedContext } from 'koa';
import type { VersionEntry } from '../../contract/versions.js';
import type { Branch, Tenant } from '../../store/tenants.repo.js';
import type { Token } from '../../store/tokens.repo.js';

/** Who is asking: the tenant of the Host, and the token's branch within it. */
export interface RequestScope {
  tenant: Tenant;
  branch: Branch;
  token: Token;
}

export interface AppState {
  scope: RequestScope;
  /** The negotiated response version (from Accept). */
  accept: VersionEntry;
  /** The request body's version (from Content-Type), or `form` for the form encodings. */
  contentType?: VersionEntry | 'form';
}

export type AppContext = ParameterizedContext<AppState>;

/** This server's origin as the client addressed it (Host header), for Location and links. */
export const originOf = (ctx: Pick<AppContext, 'protocol' | 'host'>) =>
  `${ctx.protocol}://${ctx.host}`;
