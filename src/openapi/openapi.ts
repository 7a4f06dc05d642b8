import type { INestApplication } from '@nestjs/common';
import { ModulesContainer } from '@nestjs/core';
import { DocumentBuilder, OpenAPIObject, SwaggerModule } from '@nestjs/swagger';
import type { AppConfig } from '../config/config.js';
import { isFileBodyPath } from '../http/wire/file-body.js';
import { IDEMPOTENCY_KEY_HEADER, IDEMPOTENCY_REPLAYED_HEADER, KEY_MAX_LENGTH, KEY_RE, KEY_RULE } from '../http/pipeline/idempotency.js';
import { refineDocument } from './openapi-document.js';
import { collectRoutes } from './openapi-routes.js';
import { declareTags } from './openapi-tags.js';
import { assertSchemesHaveNoRef, swaggerUiOptions } from './swagger-ui.js';
import { DOCUMENT_CONTRIBUTOR, type DocumentContribution } from '../http/pipeline/document-contributor.js';
import { buildXmlSchemas, XSD_BASE, XSD_FILES } from './xsd.js';

const DESCRIPTION = `
Multi-tenant REST API for organizational performance management (spec v4). Every body is JSON or XML.

* **Authentication**: \`POST /v4/auth/token\` with \`{ "UserName", "Password" }\` answers a bearer token; send it as \`Authorization: Bearer <token>\` on every other /v4 call.
* **Media types**: requests in \`application/json\`, \`text/json\`, \`application/xml\` or \`text/xml\` (else 415); the answer follows \`Accept\` (q-values honoured; JSON by default).
* **XML**: root element named after the type in the namespace of \`XML_NAMESPACE\`; child elements in ordinal (code-point) order as .NET's DataContractSerializer expects; nulls as \`i:nil="true"\`; collections \`ArrayOf{Type}\` (\`List\` for ListItem, \`Dashboards\` for Dashboard); the empty object \`<Object/>\`.
* **XML Schema**: every XML body is described by [\`${XSD_BASE}${XSD_FILES.main}\`](${XSD_BASE}${XSD_FILES.main}) (XSD 1.0, generated from the same declarations as this document; it imports \`${XSD_FILES.system}\` and \`${XSD_FILES.problem}\` beside it): validate with \`xmllint --schema\`, or generate .NET classes with \`xsd /classes\`.
* **Dates**: \`YYYY-MM-DDTHH:mm:ss.SSS±HH:MM\`, in UTC unless \`tz\` names an IANA zone, a Windows zone id or an offset (\`?tz=+02:00\` may be typed as is: the space a query string makes of \`+\` is read as the sign).
* **Errors**: RFC 9457 problem details (\`application/problem+json\` or \`application/problem+xml\`), with \`errors: [{ field, message }]\` on validation failures. 400 invalid input, 401 no or bad token, 403 not allowed (\`admin-required\`, \`pm-disabled\`), 404 unknown id or another site's record, 409 conflict, 412 If-Match mismatch, 413 body over 1 MiB, 415 media type, 429 throttled, 503 database unavailable.
* **Lists** take \`limit\` (default 500, max 5000) and \`offset\` and answer \`X-Total-Count\` and \`Link: <…>; rel="next"\`.
* **Safe retries**: send \`Idempotency-Key\` on a POST, PUT or PATCH; a retry with the same key, method, path and body within {retention} answers the first success again (\`Idempotency-Replayed: true\`, in the format and \`tz\` the retry asks for) without writing again; the same key with another request is 409 \`idempotency-key-reused\`. Errors are not stored, so a corrected retry may reuse the key.
* **Headers**: every answer carries \`X-Request-Id\` (a well-formed one sent with the request is kept); single records carry an \`ETag\` (\`If-None-Match\` with it answers 304); token answers carry \`Cache-Control: no-store\`; 429 and 503 carry \`Retry-After\`.
* **Authorization**: administrators may do everything in their site; for anyone else a Permission record decides first — any Deny that applies (to the user or a security group of theirs, on the row or, through \`ChildType\`, on a row above it) wins, then any Allow — and the defaults after that (every member reads individuals, organizations and departments; an individual and everyone above them in the reporting chain read and change their records). States: \`0\` Not Set, \`1\` Allow, \`2\` Deny. ChildType: null the row itself, \`19\` departments, \`4\` organizations, \`15\` projects, \`9\`/\`25\`/\`38\` dialogs, \`7\`/\`16\`/\`58\` metrics below the row; any other number is stored as null. A row hidden by a Deny on Read answers 404 and is left out of lists. \`GET /v4/permissions/effective\` explains any decision.
* **Writes**: read-only (RO) fields are ignored on input; on update the body \`ID\` must equal the path id; single records carry an \`ETag\`, and PUT/PATCH/DELETE with \`If-Match\` answer 412 when the record changed meanwhile. Every success is 200.
* **Partial updates**: every record with a PUT also takes PATCH on the same path, a JSON Merge Patch (RFC 7396): \`application/merge-patch+json\` (or \`application/json\`), or in XML \`application/merge-patch+xml\` (or \`application/xml\`) where an absent element keeps the value and \`i:nil="true"\` sets null. The merged record must pass every rule of the PUT.
`.trim();

export function buildOpenApi(app: INestApplication, config: AppConfig): OpenAPIObject {
  const options = new DocumentBuilder()
    .setTitle('Performance Management Service API')
    .setVersion('4')
    .setDescription(
      `${DESCRIPTION.replace('{retention}', retention(config.idempotencyTtlSeconds))}\n\nXML namespace of this deployment: \`${config.xmlNamespace}\`.`,
    )
    .addBearerAuth({ type: 'http', scheme: 'bearer', bearerFormat: 'JWT', description: 'Token from POST /v4/auth/token' }, 'bearer')
    .build();
  const document = SwaggerModule.createDocument(app, options);
  // The project's license (package.json), by its SPDX identifier as OpenAPI 3.1 allows.
  document.info.license = { name: 'MIT', identifier: 'MIT' } as OpenAPIObject['info']['license'];
  // The XML Schema of every XML body (xsd.ts), as a path on this server: an `externalDocs` URL must be absolute.
  (document as OpenAPIObject & Record<string, unknown>)['x-xml-schema'] = {
    url: `${XSD_BASE}${XSD_FILES.main}`,
    imports: [`${XSD_BASE}${XSD_FILES.system}`, `${XSD_BASE}${XSD_FILES.problem}`],
    targetNamespace: config.xmlNamespace,
    description: 'XSD 1.0 of every XML body, generated from the same declarations as this document.',
  };
  declareTags(document, app.get(ModulesContainer));
  addTimeZoneParameter(document);
  const contributions = contributionsOf(app.get(ModulesContainer));
  refineDocument(document, collectRoutes(app.get(ModulesContainer)), { xmlNamespace: config.xmlNamespace, contributions });
  addIdempotencyKeyHeader(document, config);
  for (const c of contributions) c.complete?.(document);
  return document;
}

/** The providers of every module marked @ContributesToDocument (the features' own parts of the document), in module order. */
function contributionsOf(modules: ModulesContainer): DocumentContribution[] {
  const found: DocumentContribution[] = [];
  for (const mod of modules.values()) {
    for (const wrapper of mod.providers.values()) {
      const type = wrapper.metatype as Function | null;
      if (type && Reflect.getMetadata(DOCUMENT_CONTRIBUTOR, type) && wrapper.instance) found.push(wrapper.instance as DocumentContribution);
    }
  }
  return found;
}

/** `24 hours`, `90 minutes`, `45 seconds`: how long keys are kept, as configured. */
function retention(seconds: number): string {
  if (seconds % 3600 === 0) return `${seconds / 3600} hour${seconds === 3600 ? '' : 's'}`;
  if (seconds % 60 === 0) return `${seconds / 60} minutes`;
  return `${seconds} seconds`;
}

/**
 * Every POST, PUT and PATCH of an authenticated caller honours Idempotency-Key (the write
 * routes' stage, IdempotencyStage; docs/idempotency.md): declare the header, the replay marker of the
 * answer and the 409 on each, rather than on every controller.
 */
function addIdempotencyKeyHeader(document: OpenAPIObject, config: AppConfig): void {
  const ttl = retention(config.idempotencyTtlSeconds);
  const parameter = {
    name: IDEMPOTENCY_KEY_HEADER,
    in: 'header' as const,
    required: false,
    // No example: Swagger UI would pre-fill it, and a second try-out with another body would answer
    // 409 idempotency-key-reused.
    schema: { type: 'string' as const, minLength: 1, maxLength: KEY_MAX_LENGTH, pattern: KEY_RE.source },
    description: `Makes a retry safe: a new unique value (e.g. a UUID) per intended write, ${KEY_RULE}, else 400. A retry with the same key, method, path and body within ${ttl} answers the first success again without writing (header ${IDEMPOTENCY_REPLAYED_HEADER}: true); the same key with another request is 409 idempotency-key-reused. Keys belong to the caller and site. Errors are not stored.`,
  };
  // Declared once and referred to by every write: the document stays light (Swagger UI's cold load, docs/openapi.md).
  const components = (document.components ??= {});
  components.parameters = { ...components.parameters, [IDEMPOTENCY_KEY_HEADER]: parameter };
  components.headers = {
    ...components.headers,
    [IDEMPOTENCY_REPLAYED_HEADER]: {
      description: 'true when this answer is a replay of the answer stored for the Idempotency-Key; absent otherwise.',
      schema: { type: 'string', enum: ['true'] },
    },
  };
  for (const [path, item] of Object.entries(document.paths)) {
    // A route whose body is a file read as a stream (an import) cannot run again from a stored request: it takes no key.
    if (!path.startsWith('/v4/') || path === '/v4/auth/token' || isFileBodyPath(path)) continue;
    for (const method of ['put', 'patch', 'post'] as const) {
      const op = item[method];
      if (!op) continue;
      op.parameters ??= [];
      op.parameters = op.parameters.filter((p) => !('name' in p && p.name === IDEMPOTENCY_KEY_HEADER));
      op.parameters.push({ $ref: `#/components/parameters/${IDEMPOTENCY_KEY_HEADER}` });
      const ok = op.responses['200'] as { headers?: Record<string, unknown> } | undefined;
      if (ok) {
        ok.headers = { ...ok.headers, [IDEMPOTENCY_REPLAYED_HEADER]: { $ref: `#/components/headers/${IDEMPOTENCY_REPLAYED_HEADER}` } };
      }
      const conflict = op.responses['409'] as { description?: string } | undefined;
      const note = 'idempotency-key-reused: the Idempotency-Key was used for a different request.';
      if (conflict) conflict.description = `${conflict.description ?? 'Conflict'}; ${note}`;
      else
        op.responses['409'] = {
          description: `Conflict (problem details); ${note}`,
          content: { 'application/problem+json': {}, 'application/problem+xml': {} },
        };
    }
  }
}

const TZ_PARAMETER = {
  name: 'tz',
  in: 'query' as const,
  required: false,
  // No example: Swagger UI would pre-fill it, and every try-out would answer in that zone.
  schema: { type: 'string' as const },
  description:
    'Time zone in which every date of the answer is written: an IANA name (Europe/Berlin), a Windows zone id (W. Europe Standard Time) or a fixed offset (+02:00; typed as is in a URL the + arrives as a space, which is read as +). Default UTC; an unknown zone is 400.',
};

/**
 * Every /v4 operation takes `tz` (the guard reads it for all of them): declared once in the
 * components (`TimeZone`) and referred to by each operation, so the document stays light.
 */
function addTimeZoneParameter(document: OpenAPIObject): void {
  const components = (document.components ??= {});
  components.parameters = { ...components.parameters, TimeZone: TZ_PARAMETER };
  for (const [path, item] of Object.entries(document.paths)) {
    if (!path.startsWith('/v4/') || path === '/v4/auth/token') continue;
    for (const method of ['get', 'put', 'patch', 'post', 'delete'] as const) {
      const op = item[method];
      if (!op) continue;
      // One definition for all: some controllers declare their own (@ApiQuery without a type).
      op.parameters = [...(op.parameters ?? []).filter((p) => !('name' in p && p.name === 'tz')), { $ref: '#/components/parameters/TimeZone' }];
    }
  }
}

/** The application's OpenAPI document, built once when first asked for. */
export interface OpenApiDocument {
  get(): OpenAPIObject;
}

/** The OpenAPI document and the XML Schemas (by file name, XSD_FILES) an application serves. */
export interface BuiltDocuments {
  openapi: OpenAPIObject;
  xsd: Record<string, string>;
}

/**
 * Swagger UI at /docs, the OpenAPI document at /docs/openapi.json, and the XML Schema of every XML
 * body at /docs/pms-v4.xsd with the schemas it imports (xsd.ts). The document is built when first
 * asked for (about a second of one thread's time: @nestjs/swagger scans every route): the service's
 * start asks for it before it takes requests (app.factory.ts), an application built for a test
 * only when the test reads it. `prebuilt`: what an application of the same code and settings served
 * (the e2e harness keeps it for its run, docs/testing.md), served instead of building them again.
 */
export function setupOpenApi(app: INestApplication, config: AppConfig, prebuilt?: BuiltDocuments): OpenApiDocument {
  let built: OpenAPIObject | undefined = prebuilt?.openapi;
  const document = {
    get(): OpenAPIObject {
      if (!built) {
        const fresh = buildOpenApi(app, config);
        assertSchemesHaveNoRef(fresh.components?.securitySchemes);
        built = fresh;
      }
      return built;
    },
  };
  let schemas: Record<string, string> | undefined = prebuilt?.xsd;
  const http = app.getHttpAdapter();
  for (const file of Object.values(XSD_FILES)) {
    http.get(`${XSD_BASE}${file}`, (_req: unknown, res: { setHeader(name: string, value: string): void; end(body: string): void }) => {
      schemas ??= buildXmlSchemas(document.get(), collectRoutes(app.get(ModulesContainer)), config.xmlNamespace);
      res.setHeader('Content-Type', 'application/xml; charset=utf-8');
      res.end(schemas[file]);
    });
  }
  SwaggerModule.setup('docs', app, () => document.get(), {
    jsonDocumentUrl: 'docs/openapi.json',
    customSiteTitle: 'PMS API v4',
    swaggerOptions: swaggerUiOptions(),
  });
  return document;
}
