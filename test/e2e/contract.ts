import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { brotliDecompressSync, gunzipSync } from 'node:zlib';
import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import { ROUTE_KEY } from '../../src/http/pipeline/http-metrics.js';
import { XmlAnswers } from './xml-answers.js';

/**
 * Holds every e2e test to the OpenAPI document: each answer the app gives while a test file runs
 * is recorded, and at the end (TestApp.close) its status must be one the document declares for
 * that operation, and a JSON body must match the declared schema (null only where the schema
 * allows it, required fields present, problem bodies shaped as Problem). So the document cannot
 * drift from what the service does without some e2e test noticing. Every XML answer (problems
 * included, whether or not a route took the request) is also validated against the app's own XML
 * Schema (/docs/pms-v4.xsd) with xmllint, and its root must be the one the document names for the
 * answer (xml-answers.ts). See docs/openapi.md.
 */
interface Observation {
  method: string;
  route: string;
  status: number;
  contentType: string;
  body: string;
  /** Asked with `fields=`: the answer holds only the members asked for, ID always (docs/queries.md). */
  partial?: boolean;
}

type Json = Record<string, unknown>;

/** Bodies validated per (operation, status, media type): enough to see every shape, bounded for the scale tests. */
const BODIES_PER_KEY = 25;

/** The body as written before its content coding (the server compresses what the client accepts). */
function decoded(body: Buffer, coding: unknown): Buffer {
  if (coding === 'gzip') return gunzipSync(body);
  if (coding === 'br') return brotliDecompressSync(body);
  if (coding === undefined || coding === 'identity') return body;
  throw new Error(`contract: unexpected Content-Encoding ${String(coding)}`);
}

export class ContractRecorder {
  private readonly seen: Observation[] = [];
  private readonly bodies = new Map<string, number>();
  /** Every XML answer of the file, kept on disk until the file closes its app. */
  readonly xml = new XmlAnswers();

  /** Records the answers of this server (registered before the application's own listener). */
  attach(server: Server): void {
    server.prependListener('request', (req: IncomingMessage & Record<string, unknown>, res: ServerResponse) => {
      const chunks: Buffer[] = [];
      const write = res.write.bind(res) as (...a: unknown[]) => boolean;
      const end = res.end.bind(res) as (...a: unknown[]) => ServerResponse;
      const keep = (chunk: unknown) => {
        if (typeof chunk === 'string') chunks.push(Buffer.from(chunk));
        else if (chunk instanceof Uint8Array) chunks.push(Buffer.from(chunk));
      };
      res.write = ((chunk: unknown, ...rest: unknown[]) => {
        keep(chunk);
        return write(chunk, ...rest);
      }) as ServerResponse['write'];
      res.end = ((chunk?: unknown, ...rest: unknown[]) => {
        if (typeof chunk !== 'function') keep(chunk);
        return end(chunk, ...rest);
      }) as ServerResponse['end'];
      res.on('finish', () => {
        const route = req[ROUTE_KEY];
        const contentType = String(res.getHeader('content-type') ?? '').split(';')[0];
        const path = String(req.originalUrl ?? req.url ?? '').split('?')[0];
        // Every API answer in XML; not the documentation's own files (/docs: the schemas themselves).
        if (/[/+]xml$/.test(contentType) && !path.startsWith('/docs/')) {
          const label = `${String(req.method)} ${typeof route === 'string' ? route : path} → ${res.statusCode} ${contentType}`;
          this.xml.record(
            decoded(Buffer.concat(chunks), res.getHeader('content-encoding')),
            label,
            typeof route === 'string' ? { method: String(req.method).toLowerCase(), route, status: res.statusCode, contentType } : undefined,
          );
        }
        if (typeof route !== 'string') return; // no route matched (404/405 of unknown paths)
        const partial = /[?&]fields=/.test(String(req.originalUrl ?? req.url ?? ''));
        const key = `${req.method} ${route} ${res.statusCode} ${contentType}${partial ? ' fields' : ''}`;
        const n = this.bodies.get(key) ?? 0;
        this.bodies.set(key, n + 1);
        this.seen.push({
          method: String(req.method).toLowerCase(),
          route,
          status: res.statusCode,
          contentType,
          body: n < BODIES_PER_KEY ? decoded(Buffer.concat(chunks), res.getHeader('content-encoding')).toString('utf8') : '',
          partial,
        });
      });
    });
  }

  /** What the app answered that the document does not say, one line each (empty: all conform). */
  violations(document: Json): string[] {
    let checker = checkers.get(document);
    if (!checker) checkers.set(document, (checker = new DocumentChecker(document)));
    const out = new Set<string>();
    for (const o of this.seen) for (const v of checker.check(o)) out.add(v);
    return [...out];
  }
}

/**
 * The XML root names the document gives an answer of an operation (the `xml.name` of its schema:
 * the type, `ArrayOf…`, `List`, `problem`), or undefined when it names none.
 */
export function xmlRootsOf(document: Json, answer: { method: string; route: string; status: number; contentType: string }): string[] | undefined {
  const components = (document.components ?? {}) as Record<string, Record<string, Json>>;
  const path = answer.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
  const op = (document.paths as Record<string, Record<string, Json>>)[path]?.[answer.method] as { responses?: Record<string, Json> } | undefined;
  let response = op?.responses?.[String(answer.status)];
  if (typeof response?.$ref === 'string') response = components.responses?.[response.$ref.split('/').pop()!];
  const schema = (response?.content as Record<string, { schema?: Json }> | undefined)?.[answer.contentType]?.schema;
  if (!schema) return undefined;
  const nameOf = (s: Json): string | undefined => {
    if (typeof s.$ref === 'string') s = components.schemas?.[s.$ref.split('/').pop()!] ?? {};
    return (s.xml as { name?: string } | undefined)?.name;
  };
  const names = [schema, ...((schema.anyOf as Json[] | undefined) ?? [])].map(nameOf).filter((n): n is string => !!n);
  return names.length ? names : undefined;
}

const SCHEMAS_ID = 'https://pms-api.test/schemas';

/** One checker a document object: the apps of a test file with the same settings share their document (harness.ts) and so its compiled schemas. */
const checkers = new WeakMap<Json, DocumentChecker>();

class DocumentChecker {
  private readonly ajv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  /** The same schemas with only ID required: answers asked with `fields=` (docs/queries.md). */
  private readonly partialAjv = new Ajv2020({ strict: false, allErrors: false, validateSchema: false });
  private readonly compiled = new Map<string, ValidateFunction>();
  private readonly paths: Record<string, Record<string, Json>>;
  private readonly responses: Record<string, Json>;

  constructor(document: Json) {
    const components = (document.components ?? {}) as Record<string, Record<string, Json>>;
    this.paths = document.paths as Record<string, Record<string, Json>>;
    this.responses = components.responses ?? {};
    const guid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
    const dateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}[+-]\d{2}:\d{2}$/;
    this.ajv.addFormat('uuid', guid).addFormat('date-time', dateTime).addFormat('int32', true).addFormat('double', true);
    this.ajv.addSchema(this.rebase({ $id: SCHEMAS_ID, $defs: components.schemas ?? {} }));
    this.partialAjv.addFormat('uuid', guid).addFormat('date-time', dateTime).addFormat('int32', true).addFormat('double', true);
    const partial = Object.fromEntries(
      Object.entries(components.schemas ?? {}).map(([name, schema]) => [
        name,
        Array.isArray(schema.required) ? { ...schema, required: (schema.required as string[]).filter((r) => r === 'ID') } : schema,
      ]),
    );
    this.partialAjv.addSchema(this.rebase({ $id: SCHEMAS_ID, $defs: partial }));
  }

  /** `#/components/schemas/X` → the $defs of the schema registered under SCHEMAS_ID. */
  private rebase<T>(schema: T): T {
    return JSON.parse(JSON.stringify(schema).replaceAll('"#/components/schemas/', `"${SCHEMAS_ID}#/$defs/`)) as T;
  }

  check(o: Observation): string[] {
    const path = o.route.replace(/:([A-Za-z0-9_]+)/g, '{$1}');
    const label = `${o.method.toUpperCase()} ${path} → ${o.status}`;
    const op = this.paths[path]?.[o.method] as { responses?: Record<string, Json> } | undefined;
    if (!op) return [`${label}: the operation is not in the OpenAPI document`];
    let response = op.responses?.[String(o.status)];
    if (!response) return [`${label}: status not declared in the OpenAPI document`];
    if (typeof response.$ref === 'string') response = this.responses[response.$ref.split('/').pop()!];
    const content = response.content as Record<string, { schema?: Json }> | undefined;
    if (o.status === 304 || o.body === '') return [];
    if (!content) return [`${label}: a body (${o.contentType}) where the document declares none`];
    const media = content[o.contentType];
    if (!media) return [`${label}: Content-Type ${o.contentType} is not declared (declared: ${Object.keys(content).join(', ')})`];
    // NDJSON (an export, docs/exports.md) is one JSON text a line, not one document.
    if (!/[/+]json$/.test(o.contentType) || !media.schema) return [];
    const key = `${o.method} ${path} ${o.status} ${o.contentType}${o.partial ? ' fields' : ''}`;
    let validate = this.compiled.get(key);
    if (!validate) {
      validate = (o.partial ? this.partialAjv : this.ajv).compile(this.rebase(media.schema));
      this.compiled.set(key, validate);
    }
    let body: unknown;
    try {
      body = JSON.parse(o.body);
    } catch {
      return [`${label}: the body is not JSON`];
    }
    if (validate(body)) return [];
    return (validate.errors ?? []).slice(0, 3).map((e) => `${label}: ${e.instancePath || '(body)'} ${e.message} ${JSON.stringify(e.params)}`);
  }
}

/** An operation's parameters as declared, each shared one (`$ref` to the components: tz, Idempotency-Key, the list queries…) read from the document. */
export function parametersOf(document: Json, op: { parameters?: unknown[] }): Json[] {
  const shared = ((document.components as Json | undefined)?.parameters ?? {}) as Record<string, Json>;
  return ((op.parameters ?? []) as Json[]).map((p) => (typeof p.$ref === 'string' ? shared[p.$ref.replace('#/components/parameters/', '')] : p));
}
