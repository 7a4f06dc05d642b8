/**
 * The request-body examples of the API (docs/openapi.md), declared by each feature next to its
 * input types (`declareExamples` in its dto file) and collected here as the modules load: the
 * OpenAPI document shows them (src/openapi), Swagger UI sends them, and
 * test/e2e/openapi-examples.e2e-spec.ts executes every one. An example without placeholders answers 200 when sent
 * unchanged to a fresh server. A placeholder is an upper-case token standing for a whole value
 * that only the reader knows (an id the server generated, a password); the document shows an id
 * placeholder as a fixed example id of the field's type (`exampleValue`), so every example is valid
 * against its schema, and the request body's description says what to put there (docs/openapi.md).
 */
export interface BodyExample {
  /** The JSON body, with placeholder tokens; the XML example is the same data (`xmlExampleValue`). */
  body: Record<string, unknown>;
  /** Form-encoded body, for the login only. */
  form?: Record<string, string>;
}

/** What a placeholder stands for, and for an id the example value the document shows in its place. */
export interface Placeholder {
  /** Quoted by the request body's description: "replace `Field` (**value**) with <means>". */
  means: string;
  /** The example id shown in a UUID field, and in an integer field. A placeholder with neither is shown as its token (a string field). */
  uuid?: string;
  integer?: number;
}

/** Example UUIDs: recognisably made up, of version 4 as the service's own, one per placeholder. */
const exampleUuid = (n: number) => `00000000-0000-4000-8000-${String(n).padStart(12, '0')}`;

export const PLACEHOLDERS: Record<string, Placeholder> = {
  PATH_ID: {
    means: 'the id of the path (read the record first and send it back changed: the body ID must equal the path id)',
    uuid: exampleUuid(1),
    integer: 1,
  },
  ADMIN_PASSWORD: { means: 'the administrator password (ADMIN_PASSWORD, or the one printed at the first start)' },
  INDIVIDUAL_ID: { means: 'the ID of an individual of the site (GET /v4/me answers yours)', uuid: exampleUuid(2) },
  ORGANIZATION_ID: {
    means: 'the ID of an organization or department of the site (GET /v4/organizations lists the organizations)',
    uuid: exampleUuid(3),
  },
  DEPARTMENT_ID: {
    means: 'the ID of a department (or organization) the individual is not yet a member of (POST /v4/departments creates one)',
    uuid: exampleUuid(4),
  },
  PERIOD_ID: { means: 'the ID of a period (create one with POST /v4/periods, list them with GET /v4/periods)', integer: 1 },
  ANCESTOR_ID: {
    means:
      'the ID of the owner: for accountabilities, evaluation criteria and supervisory scopes an individual (GET /v4/me answers yours), for project scopes a project',
    uuid: exampleUuid(5),
  },
  USER_ID: { means: 'the UserID of an individual of the site, or the ID of a security group (GET /v4/me answers your UserID)', uuid: exampleUuid(6) },
  USER_NAME: { means: 'the UserName the individual keeps (its current one, from GET /v4/individuals/{id}) or a new one' },
};

/** `2027-01-04T00:00:00.000+00:00`: a date of an example, as the service writes it. */
export const exampleDate = (d: string): string => `${d}T00:00:00.000+00:00`;

const REQUESTS = new Map<string, BodyExample>();
const OPERATIONS = new Map<string, BodyExample>();
const LIST_ELEMENTS = new Map<string, string>();

function declareIn(map: Map<string, BodyExample>, what: string, examples: Record<string, BodyExample>): void {
  for (const [key, example] of Object.entries(examples)) {
    const known = map.get(key);
    if (known && JSON.stringify(known) !== JSON.stringify(example)) throw new Error(`${what} ${key} is declared twice, differently`);
    map.set(key, example);
  }
}

/** A feature's request-body examples, keyed by the OpenAPI schema name of the body (the input DTO's class name). */
export function declareExamples(examples: Record<string, BodyExample>): void {
  declareIn(REQUESTS, 'the example of', examples);
}

/** Examples of operations whose body differs from what the schema alone says, keyed `METHOD /path` (OpenAPI template). */
export function declareOperationExamples(examples: Record<string, BodyExample>): void {
  declareIn(OPERATIONS, 'the example of operation', examples);
}

/** The element name of the items of a nested list member in XML (`Ratings` → `AssessmentRating`), as DataContractSerializer writes it. */
export function declareListElements(elements: Record<string, string>): void {
  for (const [member, element] of Object.entries(elements)) LIST_ELEMENTS.set(member, element);
}

export const requestExample = (schemaName: string): BodyExample | undefined => REQUESTS.get(schemaName);
export const operationExample = (key: string): BodyExample | undefined => OPERATIONS.get(key);
/** Every declared request-body example, by schema name. */
export const requestExamples = (): ReadonlyMap<string, BodyExample> => REQUESTS;
/** The element of a nested list member's items (`Item` when none is declared). */
export const listElementOf = (member: string): string => LIST_ELEMENTS.get(member) ?? 'Item';
export const listElements = (): ReadonlyMap<string, string> => LIST_ELEMENTS;
