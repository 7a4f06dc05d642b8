import { ColorBand, colorFor, DEFAULT_COLOR_BANDS } from './color-band.js';

const band = (ID: number, MinPercent: number, MaxPercent: number, Rank = ID): ColorBand => ({ ID, ColorValue: ID * 100, MinPercent, MaxPercent, Rank });

describe('colorFor', () => {
  const sut = colorFor;
  const defaults = [...DEFAULT_COLOR_BANDS];

  it.each([
    [0, -1],
    [69.99, -1],
    [70, -2],
    [89.9999, -2],
    [90, -3],
    [99.5, -3],
    [100, -3],
  ])('puts %p%% in default band %p (half-open, top band includes its max)', (percent, id) => {
    expect(sut(defaults, percent)?.ID).toBe(id);
  });

  it('answers null above the top band, below the lowest band, and in a gap', () => {
    expect(sut(defaults, 100.01)).toBeNull();
    expect(sut(defaults, -0.5)).toBeNull();
    expect(sut([band(1, 0, 50), band(2, 60, 100)], 55)).toBeNull();
  });

  it('answers null for no percentage, NaN, infinity and no bands', () => {
    expect(sut(defaults, null)).toBeNull();
    expect(sut(defaults, undefined)).toBeNull();
    expect(sut(defaults, Number.NaN)).toBeNull();
    expect(sut(defaults, Number.POSITIVE_INFINITY)).toBeNull();
    expect(sut([], 50)).toBeNull();
  });

  it('does not include the max of a band that is not the top one, whatever the input order', () => {
    const bands = [band(3, 50, 120), band(1, 0, 50)];
    expect(sut(bands, 50)?.ID).toBe(3);
    expect(sut(bands, 120)?.ID).toBe(3);
    expect(sut(bands, 49.999)?.ID).toBe(1);
  });

  it('lets the lower Rank win where bands overlap, then the lower MinPercent, then the lower ID', () => {
    expect(sut([band(1, 0, 100, 5), band(2, 40, 60, 1)], 50)?.ID).toBe(2);
    expect(sut([band(1, 40, 100, 1), band(2, 0, 60, 1)], 50)?.ID).toBe(2);
    expect(sut([band(7, 0, 100, 1), band(4, 0, 100, 1)], 50)?.ID).toBe(4);
  });

  it('returns the very object it was given (the caller keeps its own type)', () => {
    const mine = { ...band(9, 0, 100), Name: 'All' };
    expect(sut([mine], 42)).toBe(mine);
  });
});
