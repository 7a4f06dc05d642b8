/** What a color band needs for the band rule; ColorDto and ColorEntity both fit. */
export interface ColorBand {
  ID: number;
  ColorValue: number;
  MinPercent: number;
  MaxPercent: number;
  Rank: number;
}

/** The built-in bands every site shows until it defines its own (docs/goals-colors-values-commitments.md). */
export const DEFAULT_COLOR_BANDS = [
  { ID: -1, Name: 'Red', ColorValue: 0xff0000, MinPercent: 0, MaxPercent: 70, Rank: 1 },
  { ID: -2, Name: 'Yellow', ColorValue: 0xffff00, MinPercent: 70, MaxPercent: 90, Rank: 2 },
  { ID: -3, Name: 'Green', ColorValue: 0x00ff00, MinPercent: 90, MaxPercent: 100, Rank: 3 },
] as const;

/** Order in which overlapping bands are tried: Rank, then MinPercent, then ID. */
export function compareBands(a: ColorBand, b: ColorBand): number {
  return a.Rank - b.Rank || a.MinPercent - b.MinPercent || a.ID - b.ID;
}

/**
 * The band a percentage falls in (docs/goals-colors-values-commitments.md): bands are half-open, `MinPercent ≤ p < MaxPercent`,
 * except that the top band (the highest MaxPercent) also includes its maximum. Where bands overlap,
 * the first in Rank, MinPercent, ID order wins. No percentage (an empty denominator), a value that is
 * not finite, or one outside every band gives null.
 */
export function colorFor<T extends ColorBand>(colors: readonly T[], percent: number | null | undefined): T | null {
  if (percent === null || percent === undefined || !Number.isFinite(percent) || colors.length === 0) return null;
  const top = Math.max(...colors.map((c) => c.MaxPercent));
  const ordered = [...colors].sort(compareBands);
  return ordered.find((c) => (percent >= c.MinPercent && percent < c.MaxPercent) || (percent === c.MaxPercent && c.MaxPercent === top)) ?? null;
}
