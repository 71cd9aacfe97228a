import type { ParameterizedContext } from 'koa';
import type { VersionEntry } from '../../contract/versions.js';
import { type Audit, type Credentials, DEFAULT_TENANT, type Tenant } from '../../store/types.js';

/**
 * Who is asking: the tenant of the Host, and the token's branch within it; and the audit its
 * writes record their events with (http/audit.ts).
 */
export type RequestScope = Credentials & { audit: Audit };

export interface AppState {
  /** The balancer's X-Request-Id when it sent a sane one, else our own: in answers and logs. */
  requestId: string;
  scope: RequestScope;
  /** The negotiated response version (from Accept). */
  accept: VersionEntry;
  /** The request body's version (from Content-Type), or `form` for the form encodings. */
  contentType?: VersionEntry | 'form';
  /** How long a JSON or form body may take to arrive (see readRawBody). */
  bodyTimeoutMs?: number;
  /** Where this tenant's absolute URLs point (Location, media URLs): see `publicOrigin`. */
  origin: string;
  /**
   * Whether the request's token is still live (auth.middleware.ts): for a request that holds
   * (a long poll) and must not answer with data after its token was revoked meanwhile.
   */
  stillAuthenticated: () => Promise<boolean>;
}

export type AppContext = ParameterizedContext<AppState>;

/**
 * The origin of a tenant's absolute URLs. Its configured public URL when set (for the default
 * tenant, also serve's --public-url); else a named tenant's own host name, so a forged Host
 * header never reaches a link; only the catch-all tenant, which has no name, uses the Host.
 */
export function publicOrigin(
  ctx: Pick<AppContext, 'protocol' | 'host'>,
  tenant: Tenant,
  defaultPublicUrl?: string,
): string {
  const configured = tenant.publicUrl ?? (tenant.host === DEFAULT_TENANT ? defaultPublicUrl : null);
  if (configured) return configured.replace(/\/+$/, '');
  if (tenant.host === DEFAULT_TENANT) return `${ctx.protocol}://${ctx.host}`;
  const port = /:(\d{1,5})$/.exec(ctx.host)?.[1];
  return `${ctx.protocol}://${tenant.host}${port ? `:${port}` : ''}`;
}
