/**
 * undici's EnvHttpProxyAgent, loaded only when a proxy is set (http.ts imports this lazily; the
 * CLI bundle keeps it in a file of its own, dist/cli/proxy.cjs, so a command without a proxy
 * reads none of it: scripts/bundle-cli.mjs). It routes each request by HTTP_PROXY, HTTPS_PROXY
 * and NO_PROXY, which http.ts passes explicitly, so undici never reads the environment itself.
 */
import type { EnvHttpProxyAgent as UndiciEnvHttpProxyAgent } from 'undici';
import AgentClass from 'undici/lib/dispatcher/env-http-proxy-agent.js';
// The request API on undici's Dispatcher prototype, which the proxy agent extends.
import './undici-pool.js';

export const EnvHttpProxyAgent = AgentClass;
export type EnvHttpProxyAgent = UndiciEnvHttpProxyAgent;
