import { columnMigration, m } from './schema-helpers.js';

/**
 * Each account's token generation (docs/identity-and-tenancy.md, "Tokens"): tokens carry the
 * generation they were issued in, and a password change moves it on, so the tokens issued before
 * the change stop working. Existing accounts start at 0, the generation of tokens issued before
 * this migration, which therefore stay valid until the next password change.
 */
export const TokenGeneration1732000001700 = columnMigration('TokenGeneration1732000001700', 'users', m.int('token_generation', { default: 0 }));
