import { randomUUID } from 'node:crypto';
import { IndividualsLastComment1732000001500 } from '../../src/database/migrations/1732000001500-individuals-last-comment.js';
import { DB_KIND } from './harness.js';
import { atReleaseBefore } from './upgrade.js';

/**
 * An existing installation upgrading to the kept newest comment (migration 1732000001500): the
 * migration adds `individuals.last_comment_id` to a database that already holds individuals,
 * their memberships and comments, and fills it from those comments (docs/comments.md).
 */
describe(`migration 1732000001500: the kept newest comment (${DB_KIND})`, () => {
  it('fills each individual’s newest live comment from the comments already there, keeping every row', async () => {
    const upgrade = await atReleaseBefore(IndividualsLastComment1732000001500);
    const { before, after } = upgrade;
    try {
      const at = (d: string) => `${d} 00:00:00.000`;
      const site = randomUUID();
      const org = randomUUID();
      const [talked, silent, other] = [randomUUID(), randomUUID(), randomUUID()];
      await before.query('INSERT INTO sites (id, name, performance_management, created, updated, version) VALUES (?, ?, 1, ?, ?, 1)', [
        site,
        'Upgraded',
        at('2026-01-01'),
        at('2026-01-01'),
      ]);
      await before.query('INSERT INTO organizations (id, site_id, name, row_type, `rank`, created, updated, version) VALUES (?, ?, ?, 4, 0, ?, ?, 1)', [
        org,
        site,
        'Org',
        at('2026-01-01'),
        at('2026-01-01'),
      ]);
      for (const id of [talked, silent, other]) {
        await before.query('INSERT INTO individuals (id, site_id, first_name, last_name, created, updated, version) VALUES (?, ?, ?, ?, ?, ?, 1)', [
          id,
          site,
          'First',
          id.slice(0, 8),
          at('2026-01-01'),
          at('2026-01-01'),
        ]);
        await before.query(
          'INSERT INTO organization_members (id, site_id, individual_id, organization_id, created, updated, version) VALUES (?, ?, ?, ?, ?, ?, 1)',
          [randomUUID(), site, id, org, at('2026-01-01'), at('2026-01-01')],
        );
      }
      const comment = async (ancestorType: string, ancestorId: string, body: string, day: string, deleted = 0) => {
        const id = randomUUID();
        await before.query(
          'INSERT INTO comments (id, site_id, ancestor_id, ancestor_type, body, author_id, deleted, deleted_by_ref, created, updated, version) VALUES (?, ?, ?, ?, ?, ?, ?, 0, ?, ?, 1)',
          [id, site, ancestorId, ancestorType, body, other, deleted, at(day), at(day)],
        );
        return id;
      };
      await comment('individuals', talked, 'old', '2026-01-02');
      const newest = await comment('individuals', talked, 'newest live', '2026-02-01');
      await comment('individuals', talked, 'newer but deleted', '2026-03-01', 1);
      await comment('metrics', talked, 'a metric with the same id, newer still', '2026-04-01');
      await comment('individuals', silent, 'only a deleted one', '2026-03-01', 1);
      expect(await upgrade.upgrade()).toContain('IndividualsLastComment1732000001500');
      const kept = (await after.query('SELECT id, last_comment_id FROM individuals WHERE site_id = ? ORDER BY id', [site])) as {
        id: string;
        last_comment_id: string | null;
      }[];
      expect(Object.fromEntries(kept.map((r) => [r.id, r.last_comment_id]))).toEqual({ [talked]: newest, [silent]: null, [other]: null });
      const members = (await after.query('SELECT COUNT(*) AS n FROM organization_members WHERE site_id = ?', [site])) as { n: number | string }[];
      expect(Number(members[0].n)).toBe(3);
    } finally {
      await upgrade.close();
    }
  });
});
