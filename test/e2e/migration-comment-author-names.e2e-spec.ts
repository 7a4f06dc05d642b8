import { randomUUID } from 'node:crypto';
import { CommentAuthorNames1732000002300 } from '../../src/database/migrations/1732000002300-comment-author-names.js';
import { DB_KIND } from './harness.js';
import { atReleaseBefore } from './upgrade.js';

/**
 * An existing installation upgrading to comments that keep their author's name (migration
 * 1732000002300): the names are filled from the authors' individuals of the comment's site, and
 * stay null where the author is none (docs/comments.md, "The author's name").
 */
describe(`migration 1732000002300: comments keep their author's name (${DB_KIND})`, () => {
  it('fills each comment’s author name from its site’s individual, and nothing else', async () => {
    const upgrade = await atReleaseBefore(CommentAuthorNames1732000002300);
    const { before, after } = upgrade;
    try {
      const at = '2026-01-01 00:00:00.000';
      const [site, elsewhere] = [randomUUID(), randomUUID()];
      for (const id of [site, elsewhere]) {
        await before.query('INSERT INTO sites (id, name, performance_management, created, updated, version) VALUES (?, ?, 1, ?, ?, 1)', [
          id,
          id.slice(0, 8),
          at,
          at,
        ]);
      }
      const person = async (siteId: string, first: string, last: string) => {
        const id = randomUUID();
        await before.query('INSERT INTO individuals (id, site_id, first_name, last_name, created, updated, version) VALUES (?, ?, ?, ?, ?, ?, 1)', [
          id,
          siteId,
          first,
          last,
          at,
          at,
        ]);
        return id;
      };
      const ana = await person(site, 'Ana', 'Ortiz');
      const gus = await person(elsewhere, 'Gus', 'Globex');
      const comment = async (authorId: string | null, deleted = 0) => {
        const id = randomUUID();
        await before.query(
          'INSERT INTO comments (id, site_id, ancestor_id, ancestor_type, body, author_id, deleted, deleted_by_ref, created, updated, version) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1)',
          [id, site, ana, 'individuals', 'text', authorId, deleted, at, at],
        );
        return id;
      };
      const byAna = await comment(ana);
      const deletedByAna = await comment(ana, 1);
      const byNobody = await comment(null);
      const byOtherSite = await comment(gus);
      expect(await upgrade.upgrade()).toContain('CommentAuthorNames1732000002300');
      const rows = (await after.query('SELECT id, author_first_name AS f, author_last_name AS l FROM comments WHERE site_id = ?', [site])) as {
        id: string;
        f: string | null;
        l: string | null;
      }[];
      expect(Object.fromEntries(rows.map((r) => [r.id, [r.f, r.l]]))).toEqual({
        [byAna]: ['Ana', 'Ortiz'],
        [deletedByAna]: ['Ana', 'Ortiz'],
        [byNobody]: [null, null],
        [byOtherSite]: [null, null],
      });
    } finally {
      await upgrade.close();
    }
  });
});
