import { AppValidationPipe } from './app-validation.pipe.js';
import { ValidationError } from '../../common/errors/errors.js';
import { WireCodec } from '../wire/codec.js';
import { InputField } from '../wire/wire.js';

class LineInput {
  @InputField('string', { required: true }) Label: string;
  @InputField('int', { required: true, minValue: 1, maxValue: 5 }) Score: number;
}

class BodyInput {
  @InputField('string') Name?: string;
  @InputField('array', { nested: () => LineInput }) Lines?: LineInput[] | null;
}

const pipe = new AppValidationPipe();
const codec = new WireCodec('urn:pms:v4');
const validate = (value: unknown) => pipe.transform(value, { type: 'body', metatype: BodyInput, data: '' }) as Promise<BodyInput>;
const fromXml = async (xml: string) => validate(await codec.decodeXml(xml));
const errorsOf = async (p: Promise<unknown>) => {
  try {
    await p;
  } catch (e) {
    if (e instanceof ValidationError) return e.errors;
    throw e;
  }
  throw new Error('expected a 400');
};

/** A list member of an input (e.g. Assessment.Ratings) reads the same from JSON and from XML. */
describe('nested list inputs', () => {
  it('reads a JSON array into instances of the item class, coerced and validated', async () => {
    const sut = await validate({
      Lines: [
        { Label: 'a', Score: '2' },
        { Label: 'b', Score: 5 },
      ],
    });
    expect(sut.Lines).toEqual([
      { Label: 'a', Score: 2 },
      { Label: 'b', Score: 5 },
    ]);
    expect(sut.Lines![0]).toBeInstanceOf(LineInput);
  });

  it('reads XML with several, one and no items (whatever the item element is called)', async () => {
    const many = await fromXml(
      '<Body xmlns="urn:pms:v4"><Lines><Line><Score>3</Score><Label>x</Label></Line><Line><Label>y</Label><Score>4</Score></Line></Lines></Body>',
    );
    expect(many.Lines).toEqual([
      { Label: 'x', Score: 3 },
      { Label: 'y', Score: 4 },
    ]);
    const one = await fromXml('<Body xmlns="urn:pms:v4"><Lines><Item><Label>z</Label><Score>1</Score></Item></Lines></Body>');
    expect(one.Lines).toEqual([{ Label: 'z', Score: 1 }]);
    const none = await fromXml('<Body xmlns="urn:pms:v4"><Name>n</Name><Lines/></Body>');
    expect(none.Lines).toEqual([]);
    const nil = await fromXml('<Body xmlns="urn:pms:v4" xmlns:i="http://www.w3.org/2001/XMLSchema-instance"><Lines i:nil="true"/></Body>');
    expect(nil.Lines).toBeNull();
  });

  it('names the failing member of an item, in XML as in JSON', async () => {
    const xml = await errorsOf(
      fromXml('<Body xmlns="urn:pms:v4"><Lines><Line><Label>x</Label><Score>3</Score></Line><Line><Score>9</Score></Line></Lines></Body>'),
    );
    const json = await errorsOf(validate({ Lines: [{ Label: 'x', Score: 3 }, { Score: 9 }] }));
    expect(xml).toEqual(json);
    expect(json.map((e) => e.field).sort()).toEqual(['Lines[1].Label', 'Lines[1].Score']);
  });

  it('refuses what is not a list', async () => {
    expect(await errorsOf(validate({ Lines: { Label: 'x', Score: 3 } }))).toEqual([{ field: 'Lines', message: 'Lines must be a list' }]);
    expect(await errorsOf(validate({ Lines: 'x' }))).toEqual([{ field: 'Lines', message: 'Lines must be a list' }]);
  });
});
