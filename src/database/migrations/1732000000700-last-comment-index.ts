import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * The newest live comment on a record (Individual.LastComment…) is read as "the first entry of
 * this index, newest first": with `id` as the last key column the tie-break on equal `created`
 * is in the index too, so the read is one index descent whatever the number of comments (SQLite
 * otherwise sorts every tie group; MySQL/MariaDB append the primary key implicitly, but saying
 * so keeps both databases on the same plan). It replaces the index it extends.
 */
export class LastCommentIndex1732000000700 implements MigrationInterface {
  name = 'LastCommentIndex1732000000700';

  async up(q: QueryRunner): Promise<void> {
    await q.createIndex(
      'comments',
      new TableIndex(m.index('ix_comments_site_ancestor_last', ['site_id', 'ancestor_type', 'ancestor_id', 'deleted', 'created', 'id'])),
    );
    await q.dropIndex('comments', 'ix_comments_site_ancestor');
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex('comments', new TableIndex(m.index('ix_comments_site_ancestor', ['site_id', 'ancestor_type', 'ancestor_id', 'deleted', 'created'])));
    await q.dropIndex('comments', 'ix_comments_site_ancestor_last');
  }
}
