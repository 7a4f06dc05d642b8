import { MigrationInterface, QueryRunner, TableColumn } from 'typeorm';
import { MIGRATED_LIMITS } from '../../common/limits.js';
import { m } from './schema-helpers.js';

/**
 * Each comment keeps its author's first and last name (Comment.AuthorName, Individual.LastComment
 * AuthorName), so a page of comments and an individual's newest comment are read without a
 * primary-key lookup of the author per row (docs/comments.md, "The author's name";
 * docs/performance.md). Filled here from the individuals; from then on set by the comment's create
 * and rewritten by every change of its author's names. A comment whose author is no individual of
 * its site keeps both null.
 */
export class CommentAuthorNames1732000002300 implements MigrationInterface {
  name = 'CommentAuthorNames1732000002300';

  async up(q: QueryRunner): Promise<void> {
    await q.addColumns('comments', [
      new TableColumn(m.str('author_first_name', MIGRATED_LIMITS.personName)),
      new TableColumn(m.str('author_last_name', MIGRATED_LIMITS.personName)),
    ]);
    // One statement for every comment; written out here so this migration stays as it is when the
    // code that keeps the names changes.
    await q.query(
      q.connection.options.type === 'better-sqlite3'
        ? 'UPDATE comments SET author_first_name = i.first_name, author_last_name = i.last_name FROM individuals i' +
            ' WHERE i.id = comments.author_id AND i.site_id = comments.site_id'
        : 'UPDATE comments c JOIN individuals i ON i.id = c.author_id AND i.site_id = c.site_id' +
            ' SET c.author_first_name = i.first_name, c.author_last_name = i.last_name',
    );
  }

  async down(q: QueryRunner): Promise<void> {
    await q.dropColumns('comments', ['author_first_name', 'author_last_name']);
  }
}
