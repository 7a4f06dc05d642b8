/**
 * One identity for a user name (docs/identity-and-tenancy.md, "User names"): what an account is
 * looked up by, what is unique, and what the login throttle counts are all the same key.
 *
 * The key is the name in Unicode compatibility form (NFKC: full-width `ａｄｍｉｎ` is `admin`),
 * case-folded (`ADMIN`, `Admin` and `admin` are one name; `ß` folds to `ss`). Characters that
 * cannot be seen or typed reliably — control characters (NUL included), format characters such
 * as zero-width spaces and bidirectional overrides, line and paragraph separators, surrogates,
 * private-use and unassigned code points — are refused, at creation and at login alike, so no
 * two spellings that look the same reach different counters.
 */
const INVISIBLE = /[\p{C}\p{Zl}\p{Zp}]/u;

/** Why a user name cannot be used, or null when it can. */
export function userNameProblem(userName: string): string | null {
  const bad = INVISIBLE.exec(userName);
  if (!bad) return null;
  const cp = bad[0].codePointAt(0) ?? 0;
  return `must not contain control, format or invisible characters (U+${cp.toString(16).toUpperCase().padStart(4, '0')})`;
}

/** The key an account is stored, found and throttled under. */
export function userNameKey(userName: string): string {
  return userName.normalize('NFKC').toUpperCase().toLowerCase().normalize('NFKC');
}
