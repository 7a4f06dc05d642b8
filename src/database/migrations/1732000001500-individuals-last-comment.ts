import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { m } from './schema-helpers.js';

/**
 * Each individual keeps the id of its newest live comment (Individual.LastComment*), so reading an
 * individual, or a page of them, joins it by primary key instead of looking it up in the comments
 * index row by row: a page of 500 of 10,000 took 11–14 ms of MariaDB with the lookup, 7–9 ms
 * with the kept id (docs/performance.md). Filled here from the comments; from then on kept by every
 * comment write (docs/comments.md).
 */
export class IndividualsLastComment1732000001500 implements MigrationInterface {
  name = 'IndividualsLastComment1732000001500';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumn('individuals', new TableColumn(m.guid('last_comment_id', true)));
    // The statement refreshLastComments runs (src/database/queries/last-comment.ts), written out so
    // this migration stays as it is when that code changes.
    await q.query(
      "UPDATE individuals SET last_comment_id = (SELECT lc.id FROM comments lc WHERE lc.site_id = individuals.site_id AND lc.ancestor_type = 'individuals'" +
        ' AND lc.ancestor_id = individuals.id AND lc.deleted = 0 ORDER BY lc.created DESC, lc.id DESC LIMIT 1)',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumn('individuals', 'last_comment_id');
  }
}
