/**
 * proxy.ts names the proxy in traces and messages by its own copy of undici's routing rules:
 * checked here against undici's EnvHttpProxyAgent itself, case by case (which of its three
 * inner dispatchers a request would go to).
 */
import { describe, expect, it } from 'vitest';
import { type ProxySettings, proxyFor } from '../../src/client/proxy.js';
import { EnvHttpProxyAgent } from '../../src/client/undici-proxy.js';

const HTTP = 'http://http-proxy.test:3128';
const HTTPS = 'http://https-proxy.test:3128';

/** Where undici's agent sends a request to `url`: a proxy URL, or undefined for direct. */
function undiciRoute(settings: ProxySettings, url: string): string | undefined {
  const agent = new EnvHttpProxyAgent({
    httpProxy: settings.http ?? '',
    httpsProxy: settings.https ?? '',
    noProxy: settings.noProxy ?? '',
  });
  const inner = Object.getOwnPropertySymbols(agent);
  const pick = (name: string) => inner.find((s) => s.description === name)!;
  const agents = agent as unknown as Record<symbol, { dispatch: () => boolean }>;
  const direct = agents[pick('no proxy agent')];
  let chosen: string | undefined = 'none';
  const record = (route: string | undefined) => () => {
    chosen = route;
    return true;
  };
  // Patched in order: an unset proxy's slot holds the direct agent (or the http one).
  agents[pick('https proxy agent')]!.dispatch = record(settings.https || settings.http);
  agents[pick('http proxy agent')]!.dispatch = record(settings.http);
  direct!.dispatch = record(undefined);
  agent.dispatch({ origin: new URL(url).origin, path: '/', method: 'GET' }, {
    onError() {},
    onHeaders: () => true,
    onData: () => true,
    onComplete() {},
  } as never);
  return chosen;
}

describe('proxyFor agrees with undici', () => {
  const cases: [ProxySettings, string][] = [
    [{ http: HTTP }, 'http://api.example.com/api'],
    [{ http: HTTP }, 'https://api.example.com/api'],
    [{ https: HTTPS }, 'http://api.example.com/api'],
    [{ https: HTTPS }, 'https://api.example.com/api'],
    [{ http: HTTP, https: HTTPS }, 'https://api.example.com/api'],
    [{ http: HTTP, https: HTTPS }, 'http://api.example.com/api'],
    [{ https: HTTPS, noProxy: 'example.com' }, 'https://api.example.com/api'],
    [{ https: HTTPS, noProxy: '.example.com' }, 'https://example.com/api'],
    [{ https: HTTPS, noProxy: '*.example.com' }, 'https://api.example.com/api'],
    [{ https: HTTPS, noProxy: 'example.com' }, 'https://notexample.com/api'],
    [{ https: HTTPS, noProxy: 'api.example.com:443' }, 'https://api.example.com/api'],
    [{ https: HTTPS, noProxy: 'api.example.com:8443' }, 'https://api.example.com/api'],
    [{ http: HTTP, noProxy: 'localhost, 127.0.0.1' }, 'http://127.0.0.1:8080/api'],
    [{ http: HTTP, noProxy: '127.0.0.1:8080' }, 'http://127.0.0.1:8080/api'],
    [{ http: HTTP, noProxy: '127.0.0.1:9090' }, 'http://127.0.0.1:8080/api'],
    [{ http: HTTP, noProxy: '*' }, 'http://api.example.com/api'],
    [{ http: HTTP, noProxy: 'API.Example.COM' }, 'http://api.example.com/api'],
    [{ http: HTTP, noProxy: '[::1]' }, 'http://[::1]:8080/api'],
    [{ http: HTTP, noProxy: '' }, 'http://api.example.com/api'],
  ];
  it.each(cases)('%j → %s', (settings, url) => {
    expect(proxyFor(settings, new URL(url))).toBe(undiciRoute(settings, url));
  });
});
