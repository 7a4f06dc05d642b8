/**
 * The `RateLimit` header of an answer read back (docs/limits.md):
 * `"caller";r=3;t=59, "site";r=20;t=59` → { caller: { r: 3, t: 59 }, site: { r: 20, t: 59 } }.
 */
export function remaining(header: string | undefined): Record<string, { r: number; t: number }> {
  const out: Record<string, { r: number; t: number }> = {};
  for (const item of (header ?? '').split(',')) {
    const m = /^\s*"(\w+)";r=(\d+);t=(\d+)\s*$/.exec(item);
    if (m) out[m[1]] = { r: Number(m[2]), t: Number(m[3]) };
  }
  return out;
}
