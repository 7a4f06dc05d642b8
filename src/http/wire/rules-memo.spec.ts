import 'reflect-metadata';
import { IsInt, IsString, MaxLength, registerDecorator, validateSync, getMetadataStorage } from 'class-validator';
import { rememberValidationRules } from './rules-memo.js';

const failing = (o: object) =>
  validateSync(o)
    .map((e) => `${e.property}:${Object.keys(e.constraints ?? {}).join(',')}`)
    .sort();

describe('rememberValidationRules', () => {
  class Base {
    @IsString()
    name!: unknown;
  }
  class Child extends Base {
    @IsInt()
    rank!: unknown;
  }

  beforeAll(() => rememberValidationRules());

  it('answers the rules class-validator would, own and inherited, and looks a class up once', () => {
    const storage = getMetadataStorage();
    const first = storage.getTargetValidationMetadatas(Child, '', false, false, undefined);
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, undefined)).toBe(first);
    expect(first.map((m) => m.propertyName).sort()).toEqual(['name', 'rank']);
    expect(failing(Object.assign(new Child(), { name: 1, rank: 'x' }))).toEqual(['name:isString', 'rank:isInt']);
    expect(failing(Object.assign(new Child(), { name: 'n', rank: 2 }))).toEqual([]);
  });

  it('keeps other options apart (groups)', () => {
    const storage = getMetadataStorage();
    expect(storage.getTargetValidationMetadatas(Child, '', false, false, ['admin'])).not.toBe(
      storage.getTargetValidationMetadatas(Child, '', false, false, undefined),
    );
  });

  it('sees a rule registered after the first validation, on the class and on its subclasses', () => {
    expect(failing(Object.assign(new Child(), { name: 'a long name', rank: 1 }))).toEqual([]);
    // A decorator applied later (as a class defined after start-up would register its own).
    MaxLength(3)(Base.prototype, 'name');
    expect(failing(Object.assign(new Child(), { name: 'a long name', rank: 1 }))).toEqual(['name:maxLength']);
    registerDecorator({
      name: 'isEven',
      target: Child,
      propertyName: 'rank',
      validator: { validate: (v: unknown) => typeof v === 'number' && v % 2 === 0 },
    });
    expect(failing(Object.assign(new Child(), { name: 'abc', rank: 1 }))).toEqual(['rank:isEven']);
  });

  it('installs once, however often it is called', () => {
    const storage = getMetadataStorage();
    const lookup = storage.getTargetValidationMetadatas;
    rememberValidationRules();
    expect(storage.getTargetValidationMetadatas).toBe(lookup);
  });
});
