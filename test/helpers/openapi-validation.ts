/**
 * Holds every answer a suite sees to the server's own OpenAPI document: the operation's status
 * (exact, else its `4XX`/`5XX` range), the body's schema for the answer's exact media type, no
 * body and no body type where none is declared, and the required headers. An answer outside
 * the document (unknown route or method) must be the error envelope.
 */
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import type { TestServer } from './server.js';

type Json = Record<string, any>;
type Answer = Awaited<ReturnType<TestServer['req']>>;

const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats.default(ajv);

/** The document with every local `$ref` replaced by its target (it has no cycles). */
export function dereference(doc: Json): Json {
  const seen = new Map<string, unknown>();
  const walk = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(walk);
    if (typeof node !== 'object' || node === null) return node;
    const { $ref, ...rest } = node as Json;
    if (typeof $ref === 'string' && $ref.startsWith('#/')) {
      if (!seen.has($ref)) {
        const target = $ref
          .slice(2)
          .split('/')
          .reduce((n: Json | undefined, k) => n?.[k.replace(/~1/g, '/').replace(/~0/g, '~')], doc);
        if (target === undefined) throw new Error(`unresolved $ref ${$ref}`);
        seen.set($ref, walk(target));
      }
      return { ...(seen.get($ref) as Json), ...(walk(rest) as Json) };
    }
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, walk(v)]));
  };
  return walk(doc) as Json;
}

const validators = new WeakMap<object, ReturnType<typeof ajv.compile>>();
function check(schema: Json, value: unknown, what: string) {
  let validate = validators.get(schema);
  if (!validate) {
    validate = ajv.compile(schema);
    validators.set(schema, validate);
  }
  if (!validate(value)) {
    throw new Error(`${what}: ${ajv.errorsText(validate.errors, { separator: '; ' })}`);
  }
}

/** The path item and its template for a request path (`/api/…` under the base, else root). */
function pathItem(doc: Json, path: string): [string, Json] | undefined {
  const clean = path.split('?')[0]!;
  for (const [template, item] of Object.entries<Json>(doc.paths)) {
    const full = item.servers ? template : `/api${template === '/' ? '' : template}`;
    const pattern = new RegExp(`^${full.replace(/\{[^}]+\}/g, '[^/]+')}/?$`);
    if (pattern.test(clean)) return [template, item];
  }
  return undefined;
}

export function checkAnswer(doc: Json, method: string, path: string, r: Answer): void {
  const where = `${method} ${path} → ${r.status}`;
  const type = r.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
  const operation = pathItem(doc, path)?.[1][method.toLowerCase()] as Json | undefined;
  if (!operation) {
    if (r.status < 400) throw new Error(`${where}: an answer to an operation the document lacks`);
    // SCIM's routes answer in SCIM's own error schema (RFC 7644 §3.12), the API in its envelope.
    const scim = path.startsWith('/scim/');
    const [errorType, schema] = scim
      ? ['application/scim+json', doc.components.schemas.ScimError]
      : ['application/json', doc.components.schemas.Error];
    if (type !== errorType) throw new Error(`${where}: error answer of type ${type}`);
    // A HEAD answer has no body to check.
    if (method !== 'HEAD') check(schema, r.json, `${where}: not the error envelope`);
    return;
  }
  const responses = operation.responses as Json;
  const declared = responses[String(r.status)] ?? responses[`${String(r.status)[0]}XX`];
  if (!declared) {
    const listed = Object.keys(responses).join(', ');
    throw new Error(`${where}: status not in the document (${operation.operationId}: ${listed})`);
  }
  for (const [name, header] of Object.entries<Json>(declared.headers ?? {})) {
    const value = r.headers[name.toLowerCase()];
    if (value === undefined) {
      if (header.required) throw new Error(`${where}: required header ${name} is missing`);
    } else check(header.schema, value, `${where}: header ${name}`);
  }
  if (method === 'HEAD') {
    if (r.text !== '') throw new Error(`${where}: a HEAD answer with a body`);
    return;
  }
  if (!declared.content) {
    if (r.text !== '' || type !== undefined) {
      throw new Error(`${where}: declared without a body, answered ${type} '${r.text}'`);
    }
    return;
  }
  const media = declared.content[type ?? ''] ?? declared.content['*/*'];
  if (!media) {
    const listed = Object.keys(declared.content).join(', ');
    throw new Error(`${where}: media type ${type} is not declared (${listed})`);
  }
  const body = type?.endsWith('json') ? r.json : r.text;
  check(media.schema, body, `${where} (${type}) does not match the document`);
}

/** `s` with a `req` that checks every answer against the server's `/api/openapi.json`. */
export function validating<S extends TestServer>(s: S): S {
  let doc: Promise<Json> | undefined;
  const req: TestServer['req'] = async (method, path, opts) => {
    doc ??= s.req('GET', '/api/openapi.json', { token: null }).then((d) => {
      if (d.status !== 200)
        throw new Error(`GET /api/openapi.json answered ${d.status}: ${d.text}`);
      return dereference(d.json);
    });
    const answer = await s.req(method, path, opts);
    checkAnswer(await doc, method, path, answer);
    return answer;
  };
  return { ...s, req };
}
