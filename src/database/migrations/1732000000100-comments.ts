import { MigrationInterface, QueryRunner, Table } from 'typeorm';
import { m } from './schema-helpers.js';

export class Comments1732000000100 implements MigrationInterface {
  name = 'Comments1732000000100';

  async up(q: QueryRunner): Promise<void> {
    await q.createTable(
      new Table({
        name: 'comments',
        columns: [
          m.guidPk(),
          ...m.tenant(),
          m.guid('ancestor_id'),
          m.str('ancestor_type', 20, false),
          m.text('body', false),
          m.guid('author_id', true),
          m.bool('deleted'),
          m.bool('deleted_by_ref'),
        ],
        indices: [
          m.index('ix_comments_site_ancestor', ['site_id', 'ancestor_type', 'ancestor_id', 'deleted', 'created']),
          m.index('ix_comments_site_author', ['site_id', 'author_id', 'created']),
        ],
      }),
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropTable('comments', true);
  }
}
