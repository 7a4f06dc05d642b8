import { AppValidationPipe } from './app-validation.pipe.js';
import { keepDeclared } from '../wire/declared-input.js';
import { InputField } from '../wire/wire.js';

// Input classes as the resources declare them: a flat one, and one with a nested list.
class TokenRequestDto {
  @InputField('string', { required: true })
  UserName!: string;
  @InputField('string', { required: true })
  Password!: string;
}
class RatingInput {
  @InputField('string', { required: true })
  ItemKind!: string;
  @InputField('guid')
  ItemID?: string | null;
  @InputField('int', { required: true })
  Rating!: number;
}
class CreateAssessmentDto {
  @InputField('string', { required: true })
  Kind!: string;
  @InputField('array', { nested: () => RatingInput })
  Ratings?: RatingInput[];
}

describe('keepDeclared', () => {
  it('keeps only the fields the input class declares, in one walk over the keys', () => {
    const sut = keepDeclared(JSON.parse('{"UserName":"a","Password":"b","Extra":1,"__proto__":{"polluted":true},"constructor":"x"}'), TokenRequestDto);
    expect(sut).toEqual({ UserName: 'a', Password: 'b' });
    expect(Object.getPrototypeOf(sut)).toBe(Object.prototype);
    expect((sut as { polluted?: boolean }).polluted).toBeUndefined();
  });

  it('cuts the items of a nested list too, in the JSON shape and in the XML list wrapper', () => {
    const rating = { ItemKind: 'general', ItemID: null, Rating: 3, Junk: 'x' };
    const json = keepDeclared({ Kind: 'self', Ratings: [rating, rating], Junk: 1 }, CreateAssessmentDto) as { Ratings: object[] };
    expect(json.Ratings).toEqual([
      { ItemKind: 'general', ItemID: null, Rating: 3 },
      { ItemKind: 'general', ItemID: null, Rating: 3 },
    ]);
    const xml = keepDeclared({ Kind: 'self', Ratings: { AssessmentRating: [rating, rating] } }, CreateAssessmentDto) as {
      Ratings: { AssessmentRating: object[] };
    };
    expect(xml.Ratings.AssessmentRating).toEqual(json.Ratings);
  });

  it('leaves what is not an object for validation to judge', () => {
    expect(keepDeclared('text', TokenRequestDto)).toBe('text');
    expect(keepDeclared(null, TokenRequestDto)).toBeNull();
  });

  it('makes the pipe drop 100,000 unknown keys and still validate the declared ones', async () => {
    const body: Record<string, unknown> = { UserName: 'admin', Password: 'secret' };
    for (let i = 0; i < 100_000; i++) body[String(i)] = 1;
    const sut = new AppValidationPipe();
    const dto = (await sut.transform(body, { type: 'body', metatype: TokenRequestDto, data: '' })) as Record<string, unknown>;
    expect(dto).toBeInstanceOf(TokenRequestDto);
    expect(Object.keys(dto).sort()).toEqual(['Password', 'UserName']);
  });
});
