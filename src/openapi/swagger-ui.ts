/**
 * Swagger UI's options at /docs (docs/openapi.md, "Swagger UI").
 *
 * Swagger UI 5 handles an OpenAPI 3.1 document with ApiDOM, and each subtree it resolves costs a
 * pass over the whole document (turning it into ApiDOM elements and normalizing them): about a
 * second for ours. At load it asks for one such subtree, `components.securitySchemes`, in case
 * the schemes hold `$ref`s, and draws no operation until that pass is done (5–8 s after the page
 * opened, measured in Chromium). Ours hold no `$ref`, so the plugin below leaves that one request
 * out: the list of operations is drawn at once, the Authorize dialog reads the schemes as
 * written, and an operation's own subtree is still resolved when it is opened. Measured by the
 * browser test (first operation within 7 s of a cold load; the aim of 3 s is not met: docs/openapi.md).
 *
 * The plugins reach the page as source text: @nestjs/swagger writes the options into
 * swagger-ui-init.js, functions by their `toString()`. They are made with `new Function` from the
 * text below, so what the browser runs is exactly this text, whatever compiled the server.
 */
const SKIP_SECURITY_SCHEMES_RESOLUTION = `
  return { statePlugins: { spec: { wrapActions: { requestResolvedSubtree: function (ori) {
    return function (path) {
      if (path && path[0] === 'components' && path[1] === 'securitySchemes' && path.length === 2) return undefined;
      return ori(path);
    };
  } } } } };
`;
/**
 * Swagger UI reads the document it is given through js-yaml (`parseToJson`), about a tenth of a
 * cold load for ours. The document is JSON: this plugin reads it with JSON.parse, and hands
 * anything JSON.parse cannot read to Swagger UI's own parser, errors and all.
 */
const PARSE_JSON_DOCUMENT = `
  return { statePlugins: { spec: { wrapActions: { parseToJson: function (ori, sys) {
    return function (str) {
      var text = str || sys.specSelectors.specStr();
      var json;
      try { json = JSON.parse(text); } catch (e) { return ori(str); }
      if (!json || typeof json !== 'object') return ori(str);
      sys.errActions.clear({ source: 'parser' });
      return sys.specActions.updateJsonSpec(json);
    };
  } } } } };
`;
/** The plugin Swagger UI's page has by default (replaced when `plugins` is given). */
const DOWNLOAD_URL = `return SwaggerUIBundle.plugins.DownloadUrl(system);`;

const plugin = (body: string): ((system: unknown) => unknown) => new Function('system', body) as (system: unknown) => unknown;

/** The `swaggerOptions` of SwaggerModule.setup. */
export function swaggerUiOptions(): Record<string, unknown> {
  return {
    persistAuthorization: true,
    plugins: [plugin(DOWNLOAD_URL), plugin(SKIP_SECURITY_SCHEMES_RESOLUTION), plugin(PARSE_JSON_DOCUMENT)],
  };
}

/** What the securitySchemes must be for the plugin to be right: no `$ref` anywhere in them. */
export function assertSchemesHaveNoRef(schemes: unknown): void {
  if (JSON.stringify(schemes ?? {}).includes('"$ref"')) {
    throw new Error('swagger-ui: components.securitySchemes holds a $ref, which Swagger UI must then resolve; remove SKIP_SECURITY_SCHEMES_RESOLUTION');
  }
}
