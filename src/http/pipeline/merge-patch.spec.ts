import { ValidationError } from '../../common/errors/errors.js';
import { InputField } from '../wire/wire.js';
import { mergedInput, mergeRecord, patchBody, patchSchemaOf } from './merge-patch.js';

// An update input as resources declare it: ID and Name required, the others optional.
class UpdateThingDto {
  @InputField('guid', { required: true })
  ID!: string;
  @InputField('string', { required: true, min: 1 })
  Name!: string;
  @InputField('string')
  Note?: string | null;
  @InputField('int')
  Rank?: number | null;
  @InputField('date')
  Due?: Date | null;
}

const ID = '3f2c4b1e-8a4d-4c1e-9b7a-2d5e6f708192';
/** The record as read (an answer, with a read-only member the input does not declare). */
const record = () => ({ ID, Name: 'Thing', Note: 'kept', Rank: 3, Due: new Date('2027-01-02T03:04:05.678Z'), SiteID: 'ro' });

describe('mergeRecord (RFC 7396 over a record)', () => {
  it('replaces the members the patch names, keeps the others, and keeps null as null', () => {
    const sut = mergeRecord({ A: 1, B: 'b', C: [1, 2] }, { A: 2, B: null, C: [3] });
    expect(sut).toEqual({ A: 2, B: null, C: [3] });
  });

  it('merges an object member into an object member, where null removes a member (RFC 7396 §2)', () => {
    const sut = mergeRecord({ O: { a: 1, b: 2, n: { x: 1, y: 2 } } }, { O: { b: null, c: 3, n: { y: null } } });
    expect(sut).toEqual({ O: { a: 1, c: 3, n: { x: 1 } } });
  });

  it('replaces a list whole, also by an object (an XML list element)', () => {
    expect(mergeRecord({ L: [{ a: 1 }] }, { L: { Item: { a: 2 } } })).toEqual({ L: { Item: { a: 2 } } });
  });
});

describe('patchBody', () => {
  it('reads an absent body as the empty patch and refuses anything but an object', () => {
    expect(patchBody(undefined)).toEqual({});
    expect(patchBody({ Name: 'x' })).toEqual({ Name: 'x' });
    for (const body of [[{ Name: 'x' }], 'Name', 3]) expect(() => patchBody(body)).toThrow(ValidationError);
  });
});

describe('mergedInput', () => {
  it('validates the merged record as the update input, and passes on the members the patch names, the required ones and the ID', async () => {
    const sut = await mergedInput(record(), { Note: 'changed', Unknown: 1, SiteID: 'x' }, UpdateThingDto);
    expect(sut).toBeInstanceOf(UpdateThingDto);
    expect({ ...sut }).toEqual({ ID, Name: 'Thing', Note: 'changed' });
  });

  it('passes on a null the patch names (it clears the member) and coerces XML text like a PUT body', async () => {
    const sut = await mergedInput(record(), { Note: null, Rank: '7', Due: '2027-05-01T00:00:00+02:00' }, UpdateThingDto);
    expect({ ...sut }).toEqual({ ID, Name: 'Thing', Note: null, Rank: 7, Due: new Date('2027-04-30T22:00:00.000Z') });
  });

  it('refuses null on a required member, and a merged record a PUT would refuse, naming the fields', async () => {
    await expect(mergedInput(record(), { Name: null }, UpdateThingDto)).rejects.toMatchObject({ errors: [{ field: 'Name' }] });
    await expect(mergedInput(record(), { Name: '  ', Rank: 'many' }, UpdateThingDto)).rejects.toMatchObject({
      errors: [
        { field: 'Name', message: 'Name must not be empty' },
        { field: 'Rank', message: 'Rank must be a whole number (int32)' },
      ],
    });
  });

  it('checks the record as read too: a required member missing from it is named although the patch did not touch it', async () => {
    await expect(mergedInput({ ID, Note: 'x' }, { Note: 'y' }, UpdateThingDto)).rejects.toMatchObject({ errors: [{ field: 'Name' }] });
  });

  it('passes on every merged member when the PUT replaces the record', async () => {
    const sut = await mergedInput(record(), { Note: 'changed' }, UpdateThingDto, { replaces: true });
    expect({ ...sut }).toEqual({ ID, Name: 'Thing', Note: 'changed', Rank: 3, Due: record().Due });
  });

  it('merges into the empty record when there is none yet', async () => {
    const sut = await mergedInput(null, { ID, Name: 'New' }, UpdateThingDto, { replaces: true });
    expect({ ...sut }).toEqual({ ID, Name: 'New' });
  });
});

describe('patchSchemaOf', () => {
  it('names the schema after the input (Update… → Patch…) and makes one per input', () => {
    const sut = patchSchemaOf(UpdateThingDto);
    expect(sut.name).toBe('PatchThingDto');
    expect(patchSchemaOf(UpdateThingDto)).toBe(sut);
  });
});
