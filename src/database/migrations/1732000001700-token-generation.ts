import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * Each account's token generation (docs/identity-and-tenancy.md, "Tokens"): tokens carry the
 * generation they were issued in, and a password change moves it on, so the tokens issued before
 * the change stop working. Existing accounts start at 0, the generation of tokens issued before
 * this migration, which therefore stay valid until the next password change.
 */
export class TokenGeneration1732000001700 implements MigrationInterface {
  name = 'TokenGeneration1732000001700';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('users', new TableColumn(m.int('token_generation', { default: 0 })));
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('users', 'token_generation');
  }
}
