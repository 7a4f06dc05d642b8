import type { OpenAPIObject, OperationObject, ReferenceObject, RequestBodyObject, ResponseObject, SchemaObject } from '@nestjs/swagger';
import { answersPartially } from '../http/wire/list-query.js';
import { PROBLEM_XML_NS, SYSTEM_NS } from '../http/wire/codec.js';
import { inputFields, ordinalCompare, wireFieldsOrdinal, wireInputOf, wireTypeName, type WireFieldMeta, type WireKind } from '../http/wire/wire.js';
import type { RouteInfo } from './openapi-routes.js';

/**
 * The XML Schema (XSD 1.0) of every XML body (docs/http-and-xml.md, "XML Schema"), built from the
 * declarations the OpenAPI document is built from: the routes' `@ApiResult` (root, single or
 * collection) and `@Body()` types, the wire classes' fields (`@WireField`, through `resource()`) in
 * ordinal order, and the document's `Problem` schema. Three documents, one per namespace, served
 * under /docs and importing each other by relative `schemaLocation`:
 * - `pms-v4.xsd`: the deployment's XML_NAMESPACE: one global element per root the service writes
 *   or reads (`Individual`, `ArrayOfIndividual`, `List`, `Dashboards`, `Object`, `TokenRequest`…);
 * - `pms-v4-system.xsd`: DataContract's `DateTimeOffset` (namespace …/2004/07/System);
 * - `pms-v4-problem.xsd`: RFC 9457 problem details in XML (root `problem`, urn:ietf:rfc:7807).
 */
export const XSD_FILES = { main: 'pms-v4.xsd', system: 'pms-v4-system.xsd', problem: 'pms-v4-problem.xsd' } as const;

/** Where the schemas are served: `/docs/pms-v4.xsd` and its imports beside it. */
export const XSD_BASE = '/docs/';

const XS = 'http://www.w3.org/2001/XMLSchema';
const XML_MEDIA = 'application/xml';

/** The XSD type of each scalar wire kind (what the codec writes: `true`/`false`, `String(n)`, ISO 8601 with offset). */
const SCALAR: Partial<Record<WireKind, string>> = {
  string: 'xs:string',
  guid: 'tns:guid',
  int: 'xs:int',
  // A JavaScript number as text (`33.33`, `1e+21`): xs:double's lexical space, not xs:decimal's.
  decimal: 'xs:double',
  bool: 'xs:boolean',
  date: 'xs:dateTime',
  dateTimeOffset: 'sys:DateTimeOffset',
};

/** A complex type of the main schema: the members of a wire class (or of an input-only body), in ordinal order. */
interface RecordType {
  name: string;
  fields: WireFieldMeta[];
  /** An input-only body (TokenRequest): members the client may leave out are optional. */
  input: boolean;
  /** Answered by a queried list, whose `fields=` leaves members out (docs/queries.md): every member but ID is optional. */
  partial?: boolean;
}

const attr = (v: string) => v.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const text = (v: string) => v.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');

/** The three schema documents, by file name (XSD_FILES). */
export function buildXmlSchemas(document: OpenAPIObject, routes: RouteInfo[], xmlNamespace: string): Record<string, string> {
  return {
    [XSD_FILES.main]: mainSchema(document, routes, xmlNamespace),
    [XSD_FILES.system]: systemSchema(),
    [XSD_FILES.problem]: problemSchema(document),
  };
}

/** The media types of the operation's success answer and of its request body. */
function xmlOf(document: OpenAPIObject, route: RouteInfo): { answer: boolean; body: boolean } {
  const op = document.paths[route.path]?.[route.method] as OperationObject | undefined;
  const ok = op?.responses?.['200'] as ResponseObject | undefined;
  const body = op?.requestBody as RequestBodyObject | undefined;
  return { answer: !!ok?.content?.[XML_MEDIA], body: !!body?.content?.[XML_MEDIA] };
}

class SchemaModel {
  readonly types = new Map<string, RecordType>();
  private readonly classes = new Map<string, Function>();
  /** Collection types: name → the names of its item types (one, except a root several routes share, such as `List`). */
  readonly collections = new Map<string, Set<string>>();
  /** Global elements: root name → type name. */
  readonly roots = new Map<string, string>();
  objectRoot = false;

  /** A wire class and the classes its members nest, once each; two classes of one wire name must declare the same members. */
  addClass(cls: Function): string {
    const name = wireTypeName(cls) ?? cls.name;
    const known = this.classes.get(name);
    if (known === cls) return name;
    const fields = wireFieldsOrdinal(cls);
    if (known) {
      const shape = (fs: WireFieldMeta[]) =>
        fs.map((f) => `${f.name}:${f.kind}:${!!f.nullable}:${f.nested ? (wireTypeName(f.nested()) ?? f.nested().name) : ''}`).join(' ');
      if (shape(fields) !== shape(this.types.get(name)!.fields)) throw new Error(`XML Schema: two wire classes are named ${name} with different members`);
      return name;
    }
    this.classes.set(name, cls);
    this.types.set(name, { name, fields, input: false, partial: answersPartially(cls) });
    for (const f of fields) {
      if (!f.nested) continue;
      const nested = this.addClass(f.nested());
      if (f.kind === 'array') this.addCollection(`ArrayOf${nested}`, nested);
    }
    return name;
  }

  /** An input-only body (TokenRequest, a bulk request) and the input classes its members nest, once each. */
  addInput(cls: Function, name: string): void {
    if (this.types.has(name)) return;
    const fields = [...inputFields(cls)].sort((a, b) => ordinalCompare(a.name, b.name));
    this.types.set(name, { name, fields, input: true });
    for (const f of fields) {
      if (!f.nested) continue;
      const nestedClass = f.nested();
      const nested = wireTypeName(nestedClass) ?? nestedClass.name;
      this.addInput(nestedClass, nested);
      if (f.kind === 'array') this.addCollection(`ArrayOf${nested}`, nested);
    }
  }

  addCollection(name: string, item: string): void {
    if (!this.collections.has(name)) this.collections.set(name, new Set());
    this.collections.get(name)!.add(item);
  }

  addRoot(element: string, type: string): void {
    const known = this.roots.get(element);
    if (known && known !== type) throw new Error(`XML Schema: the root ${element} would be both ${known} and ${type}`);
    this.roots.set(element, type);
  }
}

function mainSchema(document: OpenAPIObject, routes: RouteInfo[], ns: string): string {
  const model = new SchemaModel();
  const xmlRoutes = routes.map((route) => ({ route, xml: xmlOf(document, route) }));
  // Answers first: their types are the roots bodies are read in.
  for (const { route, xml } of xmlRoutes) {
    const result = route.result;
    if (!xml.answer || !result) continue;
    if (!result.type) {
      model.objectRoot = true;
      model.addRoot(result.root, 'Object');
      continue;
    }
    const name = model.addClass(result.type);
    if (result.collection) {
      model.addCollection(result.root, name);
      model.addRoot(result.root, result.root);
    } else {
      model.addRoot(name, name);
    }
  }
  // Bodies: the root a body is read in (as the OpenAPI document names it), of the type answered under that name;
  // a body of no answered type (the login's TokenRequest) gets a type of its own from its input fields.
  for (const { route, xml } of xmlRoutes) {
    if (!xml.body || !route.body) continue;
    const result = route.result?.type;
    const root = wireTypeName(route.body) ?? wireInputOf(route.body) ?? (result ? (wireTypeName(result) ?? result.name) : undefined);
    if (!root || model.roots.has(root)) continue;
    if (!model.types.has(root)) {
      if (inputFields(route.body).length === 0) continue;
      model.addInput(route.body, root);
    }
    model.addRoot(root, root);
  }
  for (const name of model.collections.keys()) {
    if (model.types.has(name)) throw new Error(`XML Schema: ${name} is both a record type and a collection`);
  }

  const lines: string[] = [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<xs:schema xmlns:xs="${XS}" xmlns:tns="${attr(ns)}" xmlns:sys="${SYSTEM_NS}" xmlns:problem="${PROBLEM_XML_NS}" targetNamespace="${attr(ns)}" elementFormDefault="qualified">`,
    '  <xs:annotation>',
    `    <xs:documentation>${text(
      `Every XML body of the Performance Management Service API v4 in the namespace ${ns}, generated from the declarations the OpenAPI document (/docs/openapi.json) is built from. ` +
        'Members in ordinal (code-point) order, as .NET DataContractSerializer writes and expects them; a member that can be null is nillable (i:nil="true"). ' +
        'It describes what the service writes, and what a client writes from it or from DataContract classes: the service also reads members in any order, ' +
        'leaves unknown members out, and takes an absent member as null (PATCH bodies are merge patches, with only the members they change).',
    )}</xs:documentation>`,
    '  </xs:annotation>',
    `  <xs:import namespace="${SYSTEM_NS}" schemaLocation="${XSD_FILES.system}"/>`,
    `  <xs:import namespace="${PROBLEM_XML_NS}" schemaLocation="${XSD_FILES.problem}"/>`,
    '  <xs:simpleType name="guid">',
    '    <xs:restriction base="xs:string">',
    '      <xs:pattern value="[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}"/>',
    '    </xs:restriction>',
    '  </xs:simpleType>',
  ];
  for (const type of [...model.types.values()].sort((a, b) => ordinalCompare(a.name, b.name))) lines.push(...recordType(type));
  for (const [name, items] of [...model.collections].sort(([a], [b]) => ordinalCompare(a, b))) lines.push(...collectionType(name, [...items]));
  if (model.objectRoot) {
    lines.push(
      '  <xs:complexType name="Object">',
      '    <xs:annotation><xs:documentation>An answer without a record: empty (&lt;Object/&gt;, the answer of a delete), or the members of a health probe (status, database).</xs:documentation></xs:annotation>',
      '    <xs:sequence>',
      '      <xs:any namespace="##targetNamespace" processContents="skip" minOccurs="0" maxOccurs="unbounded"/>',
      '    </xs:sequence>',
      '  </xs:complexType>',
    );
  }
  for (const [element, type] of [...model.roots].sort(([a], [b]) => ordinalCompare(a, b))) lines.push(`  <xs:element name="${element}" type="tns:${type}"/>`);
  lines.push('</xs:schema>', '');
  return lines.join('\n');
}

/**
 * One member: its XSD type, nillable where it can be null; an input-only body's optional members,
 * and every member but ID of a type a queried list answers (`fields=`), may be left out.
 */
function memberElement(f: WireFieldMeta, input: boolean, partial = false): string {
  const occurs = (input && f.nullable) || (partial && f.name !== 'ID') ? ' minOccurs="0"' : '';
  const nil = f.nullable ? ' nillable="true"' : '';
  const scalar = SCALAR[f.kind];
  if (scalar) return `      <xs:element name="${f.name}"${occurs}${nil} type="${scalar}"/>`;
  const nested = f.nested ? (wireTypeName(f.nested()) ?? f.nested().name) : undefined;
  if (nested) return `      <xs:element name="${f.name}"${occurs}${nil} type="tns:${f.kind === 'array' ? `ArrayOf${nested}` : nested}"/>`;
  // A member whose type depends on the route (a SyncEntry's Record: the record of the list's type), by any name.
  return [
    `      <xs:element name="${f.name}"${occurs}${nil}>`,
    '        <xs:annotation><xs:documentation>A record of the type the route answers, with its members as that type declares them.</xs:documentation></xs:annotation>',
    '        <xs:complexType>',
    '          <xs:sequence>',
    '            <xs:any namespace="##targetNamespace" processContents="skip" minOccurs="0" maxOccurs="unbounded"/>',
    '          </xs:sequence>',
    '        </xs:complexType>',
    '      </xs:element>',
  ].join('\n');
}

function recordType(type: RecordType): string[] {
  return [
    `  <xs:complexType name="${type.name}">`,
    '    <xs:sequence>',
    ...type.fields.map((f) => memberElement(f, type.input, type.partial)),
    '    </xs:sequence>',
    '  </xs:complexType>',
  ];
}

/** `ArrayOf{Type}` (or `List`, `Dashboards`): one element per record, named after its type. */
function collectionType(name: string, items: string[]): string[] {
  const element = (item: string, occurs: string) => `<xs:element name="${item}"${occurs} nillable="true" type="tns:${item}"/>`;
  const body =
    items.length === 1
      ? ['    <xs:sequence>', `      ${element(items[0], ' minOccurs="0" maxOccurs="unbounded"')}`, '    </xs:sequence>']
      : ['    <xs:choice minOccurs="0" maxOccurs="unbounded">', ...items.sort(ordinalCompare).map((item) => `      ${element(item, '')}`), '    </xs:choice>'];
  return [`  <xs:complexType name="${name}">`, ...body, '  </xs:complexType>'];
}

/** DataContract's DateTimeOffset, as WCF publishes it (svcutil maps it to System.DateTimeOffset by IsValueType). */
function systemSchema(): string {
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<xs:schema xmlns:xs="${XS}" xmlns:tns="${SYSTEM_NS}" targetNamespace="${SYSTEM_NS}" elementFormDefault="qualified">`,
    '  <xs:complexType name="DateTimeOffset">',
    '    <xs:annotation>',
    '      <xs:appinfo><IsValueType xmlns="http://schemas.microsoft.com/2003/10/Serialization/">true</IsValueType></xs:appinfo>',
    '      <xs:documentation>A .NET DateTimeOffset as DataContractSerializer writes it: the UTC instant and the offset of the zone it is shown in, in minutes.</xs:documentation>',
    '    </xs:annotation>',
    '    <xs:sequence>',
    '      <xs:element name="DateTime" type="xs:dateTime"/>',
    '      <xs:element name="OffsetMinutes" type="xs:short"/>',
    '    </xs:sequence>',
    '  </xs:complexType>',
    '  <xs:element name="DateTimeOffset" nillable="true" type="tns:DateTimeOffset"/>',
    '</xs:schema>',
    '',
  ].join('\n');
}

type Json = SchemaObject & { type?: string | string[] };
const JSON_SCALAR: Record<string, string> = { string: 'xs:string', integer: 'xs:int', number: 'xs:double', boolean: 'xs:boolean' };

/** The problem document from the OpenAPI document's Problem schema: its members in the order the service writes them. */
function problemSchema(document: OpenAPIObject): string {
  const schemas = (document.components?.schemas ?? {}) as Record<string, Json | ReferenceObject>;
  const problem = schemas.Problem as Json | undefined;
  if (!problem?.properties) throw new Error('XML Schema: the OpenAPI document has no Problem schema');
  const types: string[] = [];
  const declared = new Set<string>();
  const refName = (s: Json | ReferenceObject | undefined) => (s && '$ref' in s ? s.$ref.split('/').pop()! : undefined);

  const complexType = (name: string, schema: Json): void => {
    if (declared.has(name)) return;
    declared.add(name);
    const members = Object.entries(schema.properties ?? {}).map(([member, raw]) => {
      const prop = raw as Json;
      const types = ([] as string[]).concat(prop.type ?? []);
      const occurs = schema.required?.includes(member) ? '' : ' minOccurs="0"';
      const nil = types.includes('null') ? ' nillable="true"' : '';
      const scalar = JSON_SCALAR[types.find((t) => t !== 'null') ?? ''];
      if (types.includes('array')) {
        const item = refName(prop.items as Json | ReferenceObject);
        const itemSchema = item ? (schemas[item] as Json) : undefined;
        if (!item || !itemSchema) throw new Error(`XML Schema: Problem.${member} is a list of no named schema`);
        complexType(item, itemSchema);
        const itemElement = itemSchema.xml?.name ?? item;
        return [
          `      <xs:element name="${member}"${occurs}${nil}>`,
          '        <xs:complexType>',
          '          <xs:sequence>',
          `            <xs:element name="${itemElement}" minOccurs="0" maxOccurs="unbounded" type="tns:${item}"/>`,
          '          </xs:sequence>',
          '        </xs:complexType>',
          '      </xs:element>',
        ].join('\n');
      }
      if (!scalar) throw new Error(`XML Schema: Problem member ${member} has no XML form`);
      return `      <xs:element name="${member}"${occurs}${nil} type="${scalar}"/>`;
    });
    const doc = schema.description ? [`    <xs:annotation><xs:documentation>${text(schema.description)}</xs:documentation></xs:annotation>`] : [];
    types.push(`  <xs:complexType name="${name}">`, ...doc, '    <xs:sequence>', ...members, '    </xs:sequence>', '  </xs:complexType>');
  };
  complexType('Problem', problem);
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    `<xs:schema xmlns:xs="${XS}" xmlns:tns="${PROBLEM_XML_NS}" targetNamespace="${PROBLEM_XML_NS}" elementFormDefault="qualified">`,
    ...types,
    `  <xs:element name="${problem.xml?.name ?? 'problem'}" type="tns:Problem"/>`,
    '</xs:schema>',
    '',
  ].join('\n');
}
