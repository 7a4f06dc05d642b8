/**
 * Shared length limits (docs/adding-a-resource.md, "Limits"; each resource's page of docs/ states
 * its own), named once: the wire declarations of every resource and the entity columns use these
 * names, never bare numbers.
 */
export const LIMITS = {
  /** Names and short texts (most `Name` fields, titles, e-mail addresses, user names). */
  name: 255,
  /** A person's first and last name. */
  personName: 50,
  /** A name prefix or suffix ("Dr.", "Jr."). */
  affix: 25,
} as const;

/**
 * The lengths the migrations written so far gave the columns of these limits. Migrations name
 * these, never LIMITS: a migration that has run on a database must make the same schema on a new
 * one, whatever LIMITS says later. Changing a limit is a new migration that alters the columns
 * (the schema-drift e2e test fails until one does, since the entities follow LIMITS).
 */
export const MIGRATED_LIMITS = { name: 255, personName: 50, affix: 25 } as const;
