/**
 * Shared limits of the spec's Limits table, named once: the entity columns and the wire
 * declarations of every resource use these names, never bare numbers.
 */
export const LIMITS = {
  /** Names and short texts (most `Name` fields, titles, e-mail addresses, user names). */
  name: 255,
  /** A person's first and last name. */
  personName: 50,
  /** A name prefix or suffix ("Dr.", "Jr."). */
  affix: 25,
} as const;
