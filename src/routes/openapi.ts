import { z } from 'zod';
import { KEY_ID_PATTERN } from '../auth/keys.js';
import { CONFIRM_TOKEN_PATTERN } from '../domain/identity/confirmTokens.js';
import { describePlanRule } from '../auth/plans.js';
import { publicBaseUrl } from '../http/publicUrl.js';
import { defineRoute, JSON_TYPE, type RouteSpec } from '../http/route.js';

/**
 * GET /openapi.json: an OpenAPI 3.1 document generated from the route registry (`allRoutes`) and each
 * route's zod schemas; nothing is written by hand except the shared parts (security schemes, the error
 * shapes). A success response is the route's `response` schema (output side), else JSON of any shape,
 * with the example and status the route declares in `doc` when it has one.
 */

type Json = Record<string, unknown>;
type AnyRoute = RouteSpec<any, any>;

/** `/v1/keys/:key_id` → `/v1/keys/{key_id}`; a segment such as `message:send` is literal (no leading colon). */
export function openApiPath(path: string): string {
  return path
    .split('/')
    .map((s) => (s.startsWith(':') ? `{${s.slice(1)}}` : s))
    .join('/');
}

/**
 * Path parameters whose values have a fixed form, published as patterns: `/v1/keys/confirm/{token_hash}`
 * and `/v1/keys/{key_id}/rotate` fit the same URLs by shape, but no value fits both patterns.
 */
const PATH_PARAMETERS: Record<string, Json> = {
  key_id: { type: 'string', pattern: KEY_ID_PATTERN.source },
  token_hash: { type: 'string', pattern: CONFIRM_TOKEN_PATTERN.source, description: 'The confirm token as issued (gcct_…)' },
};

const pathParams = (path: string) => path.split('/').filter((s) => s.startsWith(':')).map((s) => s.slice(1));

/** The shape of a path with its parameter names blanked: two routes with the same shape share one OpenAPI path. */
const shapeOf = (path: string) => path.split('/').map((s) => (s.startsWith(':') ? ':' : s)).join('/');

function jsonSchema(schema: z.ZodTypeAny, io: 'input' | 'output' = 'input'): Json {
  const out = z.toJSONSchema(schema, { target: 'draft-7', io, unrepresentable: 'any', reused: 'inline', cycles: 'throw' }) as Json;
  delete out.$schema;
  return out;
}

/** The query schema's properties as `in: query` parameters. */
function queryParameters(schema: z.ZodTypeAny): Json[] {
  const s = jsonSchema(schema);
  const object = (s.properties ? s : ((s.allOf as Json[] | undefined)?.find((x) => x.properties) ?? s)) as Json;
  const properties = (object.properties ?? {}) as Record<string, Json>;
  const required = new Set((object.required as string[] | undefined) ?? []);
  return Object.entries(properties).map(([name, schema]) => ({
    name,
    in: 'query',
    required: required.has(name),
    ...(typeof schema.description === 'string' ? { description: schema.description } : {}),
    schema,
  }));
}

const tagOf = (path: string) => {
  const parts = path.split('/').filter(Boolean);
  if (parts[0] === 'v1' || parts[0] === 'a2a') return parts[0] === 'a2a' ? 'a2a' : (parts[1] ?? 'v1').split(':')[0]!;
  if (parts[0] === '.well-known' || parts[0] === 'openapi.json') return 'discovery';
  return parts[0] ?? 'root';
};

const errorRef = (name: string) => ({ $ref: `#/components/responses/${name}` });

function operation(route: AnyRoute, apiPath: string, params: string[], operationId: string): Json {
  const doc = route.doc ?? {};
  const parameters: Json[] = params.map((name) => ({ name, in: 'path', required: true, schema: PATH_PARAMETERS[name] ?? { type: 'string' } }));
  if (route.query) parameters.push(...queryParameters(route.query as z.ZodTypeAny));
  if (route.path.startsWith('/internal/')) {
    parameters.push({ name: 'X-Internal-Token', in: 'header', required: true, description: 'The INTERNAL_TOKEN of the deployment; wrong or missing answers 401', schema: { type: 'string' } });
  }
  const status = String(doc.status ?? '200');
  const contentType = doc.contentType ?? 'application/json';
  // 204 has no body, so no content; any other non-JSON type is described as a string of that type.
  const success: Json = status === '204' ? { description: doc.response ?? 'No content' } : {
    description: doc.response ?? 'Success',
    content: { [contentType]: { schema: !JSON_TYPE.test(contentType) ? { type: 'string' } : route.response ? jsonSchema(route.response, 'output') : {}, ...(doc.responseExample !== undefined ? { example: doc.responseExample } : {}) } },
  };
  const responses: Json = { [status]: success };
  if (route.body || route.query || params.length) {
    responses['400'] = errorRef('BadRequest');
    responses['422'] = errorRef('ValidationError');
  }
  if (route.auth === 'key' || route.path.startsWith('/internal/')) responses['401'] = errorRef('Unauthorized');
  if (route.auth === 'key') {
    responses['403'] = errorRef('Forbidden');
    responses['429'] = errorRef('TooManyRequests');
  }
  if (params.length) responses['404'] = errorRef('NotFound');
  responses['4XX'] = errorRef('ClientError');
  responses['500'] = errorRef('InternalError');
  responses['503'] = errorRef('Unavailable');

  const notes: string[] = [];
  if (doc.description) notes.push(doc.description);
  if (route.auth === 'public') notes.push(route.path.startsWith('/internal/') ? 'Authorised by the X-Internal-Token header.' : 'Public: no credentials.');
  else notes.push('Authorization: Bearer API key (gc_ + 32 hex) or identity-provider JWT.');
  if (route.plan) notes.push(`Requires ${describePlanRule(route.plan)} (403 otherwise).`);
  if (route.usage) notes.push('A compression call: counted in usage and quota.');

  const op: Json = {
    operationId,
    summary: doc.summary ?? `${route.method} ${apiPath}`,
    description: notes.join(' '),
    tags: [tagOf(route.path)],
    security: route.auth === 'public' ? [] : [{ bearerAuth: [] }],
    ...(parameters.length ? { parameters } : {}),
    responses,
  };
  if (route.plan) op['x-plan'] = route.plan;
  if (route.body) {
    op.requestBody = {
      required: true,
      content: {
        'application/json': {
          schema: jsonSchema(route.body as z.ZodTypeAny),
          ...(doc.requestExample !== undefined ? { example: doc.requestExample } : {}),
        },
      },
    };
  }
  return op;
}

const ERROR_SCHEMA = {
  type: 'object',
  required: ['detail'],
  description: 'Every error: JSON with a detail field; a domain error may add fields beside it (e.g. required_plan on 403).',
  properties: { detail: { description: 'What went wrong (a string; a list for validation errors)', oneOf: [{ type: 'string' }, { type: 'array' }, { type: 'object' }] } },
  additionalProperties: true,
};

const VALIDATION_SCHEMA = {
  type: 'object',
  required: ['detail'],
  description: 'HTTPValidationError (422): one entry per failed check, loc starting with where it was (body, query, path).',
  properties: {
    detail: {
      type: 'array',
      items: {
        type: 'object',
        required: ['loc', 'message'],
        properties: {
          loc: { type: 'array', items: { oneOf: [{ type: 'string' }, { type: 'integer' }] } },
          message: { type: 'string' },
          code: { type: 'string' },
        },
        additionalProperties: true,
      },
    },
  },
};

const errorResponse = (description: string, schema = '#/components/schemas/Error', example: unknown = { detail: description }, headers?: Json) => ({
  description,
  ...(headers ? { headers } : {}),
  content: { 'application/json': { schema: { $ref: schema }, example } },
});

const COMPONENTS = {
  securitySchemes: {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'An API key (gc_ followed by 32 hex characters, from POST /v1/keys or `gc keys create`) or an identity-provider JWT.',
    },
  },
  schemas: { Error: ERROR_SCHEMA, HTTPValidationError: VALIDATION_SCHEMA },
  responses: {
    BadRequest: errorResponse('Invalid parameter value', undefined, { detail: "Invalid fidelity 'tiny'. Valid values: abstract, outline, balanced, detailed, raw" }),
    ValidationError: errorResponse('Missing required field or wrong type', '#/components/schemas/HTTPValidationError', {
      detail: [{ loc: ['body', 'text'], message: 'Required', code: 'invalid_type' }],
    }),
    Unauthorized: errorResponse('Missing, expired, invalid or revoked bearer token', undefined, { detail: 'Invalid or missing API key' }, {
      'WWW-Authenticate': { schema: { type: 'string' }, description: 'Bearer' },
    }),
    Forbidden: errorResponse('Plan too low, or the resource belongs to another user', undefined, { detail: 'This operation requires the Pro plan or higher; your plan is Free', required_plan: 'pro' }),
    ClientError: errorResponse('Any other client error (405 method not allowed, 413 body too large, 415 unsupported media type, ...)', undefined, { detail: 'Method DELETE not allowed on /health' }),
    NotFound: errorResponse('Unknown resource, or not owned by the caller'),
    TooManyRequests: errorResponse('Rate limit or quota exceeded', undefined, { detail: 'Rate limit exceeded' }, {
      'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' },
    }),
    InternalError: errorResponse('Internal server error; retry with exponential back-off'),
    Unavailable: errorResponse('A dependency is unavailable or the compute pool is full; retry after Retry-After', undefined, { detail: 'Service unavailable' }, {
      'Retry-After': { schema: { type: 'integer' }, description: 'Seconds to wait' },
    }),
  },
};

/** The document for these routes, served from `baseUrl`. */
export function buildOpenApi(routes: readonly AnyRoute[], baseUrl: string, version: string): Json {
  const paths: Record<string, Json> = {};
  const byShape = new Map<string, string>(); // shape → the first registered pattern of that shape
  const ids = new Set<string>();
  for (const route of routes) {
    const shape = shapeOf(route.path);
    // Two patterns of one shape (`/tasks/:task_id`, `/tasks/:task_operation`) are one OpenAPI path:
    // the later one takes the first one's parameter names.
    const pattern = byShape.get(shape) ?? route.path;
    byShape.set(shape, pattern);
    const apiPath = openApiPath(pattern);
    const method = route.method.toLowerCase();
    let id = `${method}${apiPath.replace(/[^A-Za-z0-9]+/g, '_')}`.replace(/_+$/, '');
    while (ids.has(id)) id += '_';
    ids.add(id);
    (paths[apiPath] ??= {})[method] = operation(route, apiPath, pathParams(pattern), id);
  }
  const tags = [...new Set(routes.map((r) => tagOf(r.path)))].sort().map((name) => ({ name, description: `Routes under ${name}` }));
  return {
    openapi: '3.1.0',
    info: {
      title: 'Semantic Compression Service',
      version,
      description:
        'REST surface of the service, generated from its route registry and request schemas. Errors are JSON with a detail field; validation failures (422) are HTTPValidationError. MCP is served at /mcp (Streamable HTTP, JSON-RPC) and is not described here.',
      license: { name: 'Proprietary', identifier: 'LicenseRef-Proprietary' },
    },
    servers: [{ url: baseUrl }],
    security: [{ bearerAuth: [] }],
    tags,
    paths,
    components: COMPONENTS,
  };
}

const documents = new Map<string, string>();

/** The /openapi.json route over a registry (passed in by routes/index.ts, so nothing imports it back). */
export function openApiRoutes(registry: () => readonly AnyRoute[]) {
  return [
    defineRoute({
      method: 'GET',
      path: '/openapi.json',
      auth: 'public',
      response: z.looseObject({ openapi: z.literal('3.1.0'), info: z.looseObject({ title: z.string(), version: z.string() }), servers: z.array(z.looseObject({ url: z.string() })), paths: z.record(z.string(), z.looseObject({})), components: z.looseObject({}) }),
      doc: { summary: 'This OpenAPI 3.1 document', description: 'Generated from the route registry and the request schemas.' },
      handler({ services, headers }) {
        const base = publicBaseUrl(services.config, headers);
        let raw = documents.get(base);
        if (!raw) {
          raw = JSON.stringify(buildOpenApi(registry(), base, services.config.version));
          if (documents.size > 16) documents.clear();
          documents.set(base, raw);
        }
        return { raw, contentType: 'application/json', headers: { 'cache-control': 'public, max-age=300' } };
      },
    }),
  ];
}
