import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import ts from 'typescript';

/**
 * The OpenAPI document says a response field can be null exactly when @WireField says
 * `nullable: true`; the class's TypeScript type says the same thing (`| null`). Resources declared
 * with `resource()` derive both from one `nullable` flag (src/http/wire/resource.ts); this test
 * reads the sources and holds the two together for the wire classes written by hand (nested types,
 * the audit members), so a generated client never gets a non-null type for a field that can be
 * null, nor a nullable one for a field that never is (docs/openapi.md).
 */
const SRC = resolve(import.meta.dirname, '../..');

function sources(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sources(join(dir, e.name)) : e.name.endsWith('.ts') && !e.name.endsWith('.spec.ts') ? [join(dir, e.name)] : [],
  );
}

const includesNull = (type: ts.TypeNode | undefined): boolean =>
  !!type && ((ts.isLiteralTypeNode(type) && type.literal.kind === ts.SyntaxKind.NullKeyword) || (ts.isUnionTypeNode(type) && type.types.some(includesNull)));

function nullableOption(call: ts.CallExpression): boolean {
  const opts = call.arguments[1];
  if (!opts || !ts.isObjectLiteralExpression(opts)) return false;
  return opts.properties.some((p) => ts.isPropertyAssignment(p) && p.name.getText() === 'nullable' && p.initializer.kind === ts.SyntaxKind.TrueKeyword);
}

interface Field {
  where: string;
  typeNullable: boolean;
  declaredNullable: boolean;
}

function wireFields(): Field[] {
  const fields: Field[] = [];
  const auditTypes = new Map<string, boolean>();
  const auditCalls: { name: string; nullable: boolean; where: string }[] = [];
  for (const file of sources(SRC)) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
    const visit = (node: ts.Node): void => {
      if (ts.isPropertyDeclaration(node)) {
        const cls = node.parent as ts.ClassLikeDeclaration;
        if (cls.name && /^(AuditedWire|SoftDeletedWire)$/.test(cls.name.text)) auditTypes.set(node.name.getText(), includesNull(node.type));
        for (const d of ts.getDecorators(node) ?? []) {
          if (ts.isCallExpression(d.expression) && d.expression.expression.getText() === 'WireField') {
            fields.push({
              where: `${cls.name?.text}.${node.name.getText()}`,
              typeNullable: includesNull(node.type),
              declaredNullable: nullableOption(d.expression),
            });
          }
        }
      }
      // @WireAudit declares its members with calls: WireField(kind, opts)(proto, 'Name').
      if (ts.isCallExpression(node) && ts.isCallExpression(node.expression) && node.expression.expression.getText() === 'WireField') {
        const name = node.arguments[1];
        if (name && ts.isStringLiteral(name)) auditCalls.push({ name: name.text, nullable: nullableOption(node.expression), where: `@WireAudit ${name.text}` });
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  for (const c of auditCalls) fields.push({ where: c.where, typeNullable: auditTypes.get(c.name) ?? false, declaredNullable: c.nullable });
  return fields;
}

describe('@WireField nullability', () => {
  const fields = wireFields();

  it('finds the wire fields of every module (and those @WireAudit adds)', () => {
    expect(fields.filter((f) => f.where.startsWith('@WireAudit'))).toHaveLength(6);
    expect(fields.filter((f) => f.declaredNullable).length).toBeGreaterThan(1);
  });

  it('declares nullable: true exactly on the fields whose TypeScript type includes null', () => {
    expect(fields.filter((f) => f.typeNullable !== f.declaredNullable).map((f) => `${f.where}: type ${f.typeNullable ? 'has' : 'lacks'} null`)).toEqual([]);
  });
});
