import { field, resource } from './resource.js';

interface Row {
  id: string;
  name: string;
  note: string | null;
  version: number;
}

/** The one declaration of a field drives both its TypeScript type and its OpenAPI nullability. */
describe('resource() nullability', () => {
  const sut = resource<Row>()('NullProbe', {
    fields: {
      ID: field.guid('ReqUpd'),
      Name: field.string('Req'),
      Note: field.string('-', { nullable: true }),
    },
  });

  it('types a member `| null` only when it is declared nullable', () => {
    const wire = sut.toWire({ id: 'a', name: 'n', note: null, version: 1 });
    const name: string = wire.Name; // a `string | null` would not compile here
    const note: string | null = wire.Note;
    expect([name, note]).toEqual(['n', null]);
  });

  it('marks only the declared member nullable in the OpenAPI metadata', () => {
    const props = Reflect.getMetadata('swagger/apiModelPropertiesArray', sut.Response.prototype) as string[];
    const meta = (name: string) => Reflect.getMetadata('swagger/apiModelProperties', sut.Response.prototype, name) as { nullable?: boolean };
    expect(props.map((p) => p.replace(/^:/, ''))).toEqual(['ID', 'Name', 'Note']);
    expect([meta('ID').nullable, meta('Name').nullable, meta('Note').nullable]).toEqual([false, false, true]);
  });
});

/** What the wire writers, the ETag and the record memo rely on in a mapped record. */
describe('resource() toWire', () => {
  const sut = resource<Row>()('ShapeProbe', {
    fields: {
      ID: field.guid('ReqUpd'),
      Name: field.string('Req'),
      Note: field.string('-', { nullable: true }),
      Label: field.string('RO', { from: (e: Row) => `${e.name}!` }),
    },
  });

  it('answers an instance of the response class, its members in declared order, the row version apart', () => {
    const wire = sut.toWire({ id: 'a', name: 'n', note: null, version: 3 });
    expect(wire).toBeInstanceOf(sut.Response);
    expect(wire.constructor).toBe(sut.Response);
    expect(Object.keys(wire)).toEqual(['ID', 'Name', 'Note', 'Label']);
    expect(Object.fromEntries(Object.entries(wire))).toEqual({ ID: 'a', Name: 'n', Note: null, Label: 'n!' });
    expect(Object.getOwnPropertySymbols(wire).map((s) => (wire as unknown as Record<symbol, unknown>)[s])).toEqual([3]);
  });

  it('leaves the row version out when the row has none', () => {
    const wire = sut.toWire({ id: 'b', name: 'm', note: 'x' } as Row);
    expect(Object.getOwnPropertySymbols(wire)).toEqual([]);
    expect(wire.Note).toBe('x');
  });
});
