/**
 * A profile's token belongs to the service it was made for, as gh binds a token to its host:
 * the profile's base URL (and its German one, `--region de`). `--base-url` or ROSTER_BASE_URL
 * pointing at another origin gets that token only when a person at a terminal says yes; a
 * script is refused (exit 2) and names what works: a profile for that service, or ROSTER_TOKEN.
 * What the token would have gone to is never contacted before then.
 */
import { type Deps, interactive } from './context.js';
import { usageError } from './errors.js';
import { prompterOf } from './prompt.js';

/** A profile's token about to go to an origin the profile was not made for. */
export interface Unbound {
  profile: string;
  /** The profile's own origins. */
  home: string[];
  baseUrl: string;
  /** Where the base URL came from (`--base-url`, `ROSTER_BASE_URL`). */
  from: string;
}

const originOf = (url: string) => (URL.canParse(url) ? new URL(url).origin : url);

/** The case to ask about, or undefined when the token goes to its own service (or is not a profile's). */
export function unboundToken(
  token: { from: string },
  baseUrl: { value: string; from: string },
  profile: { name: string; baseUrl?: string; baseUrlDe?: string } | undefined,
): Unbound | undefined {
  if (!profile || !token.from.startsWith('profile')) return undefined;
  const home = [profile.baseUrl, profile.baseUrlDe].flatMap((u) => (u ? [originOf(u)] : []));
  if (home.includes(originOf(baseUrl.value))) return undefined;
  return { profile: profile.name, home, baseUrl: baseUrl.value, from: baseUrl.from };
}

/** Asks on a terminal; refuses (exit 2) when not interactive or when the answer is no. */
export async function allowUnbound(u: Unbound, deps: Deps): Promise<void> {
  const there = originOf(u.baseUrl);
  const made = `the token of profile '${u.profile}' is for ${u.home.join(' and ') || 'its own base URL'}, and ${u.from} points at ${there}`;
  if (interactive(deps.io)) {
    const yes = await prompterOf(deps).confirm({
      message: `${made}. Send that token to ${there}?`,
      default: false,
    });
    if (yes) return;
  }
  throw usageError(
    `${made}: refused, so that the token does not go to another service. Use a profile made for ${there} (\`roster login --profile NAME --base-url ${u.baseUrl}\`, then --profile NAME), or set ROSTER_TOKEN to a token of that service`,
  );
}
