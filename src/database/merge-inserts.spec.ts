import { mergeInserts } from './transactions.js';

/** How a bulk chunk's held writes travel (docs/bulk.md, "Round trips"): runs of one text become one multi-row INSERT, or one UPDATE of many rows. */
describe('mergeInserts', () => {
  const users = 'INSERT INTO `users` (`id`, `user_name`) VALUES (?, ?)';
  const people = 'INSERT INTO `individuals` (`id`, `user_id`, `first_name`) VALUES (?, ?, ?)';

  it('merges the inserts of one text in a run into one statement, rows in the order held, texts in the order first held', () => {
    const merged = mergeInserts([
      { sql: users, params: ['u1', 'ada'] },
      { sql: people, params: ['i1', 'u1', 'Ada'] },
      { sql: users, params: ['u2', 'bob'] },
      { sql: people, params: ['i2', 'u2', 'Bob'] },
    ]);
    expect(merged).toEqual([
      { sql: `${users}, (?, ?)`, params: ['u1', 'ada', 'u2', 'bob'] },
      { sql: `${people}, (?, ?, ?)`, params: ['i1', 'u1', 'Ada', 'i2', 'u2', 'Bob'] },
    ]);
  });

  it('keeps any other statement where it is, and merges only within the runs it bounds', () => {
    const batches = [
      { sql: users, params: ['u1', 'ada'] },
      { sql: 'SAVEPOINT pms_sp1', params: [] },
      { sql: users, params: ['u2', 'bob'] },
      { sql: 'UPDATE `individuals` SET `first_name` = ? WHERE `id` = ?', params: ['Ann', 'i1'] },
      { sql: users, params: ['u3', 'cy'] },
      { sql: users, params: ['u4', 'di'] },
    ];
    expect(mergeInserts(batches)).toEqual([batches[0], batches[1], batches[2], batches[3], { sql: `${users}, (?, ?)`, params: ['u3', 'cy', 'u4', 'di'] }]);
  });

  it('leaves inserts that are not a plain VALUES list of placeholders alone (an upsert, a multi-row insert already)', () => {
    const upsert = 'INSERT INTO change_seqs (site_id, seq) VALUES (?, LAST_INSERT_ID(?)) ON DUPLICATE KEY UPDATE seq = LAST_INSERT_ID(seq + ?)';
    const twoRows = `${users}, (?, ?)`;
    const batches = [
      { sql: upsert, params: ['s', 1, 1] },
      { sql: upsert, params: ['s', 1, 1] },
      { sql: twoRows, params: ['u1', 'a', 'u2', 'b'] },
      { sql: twoRows, params: ['u3', 'c', 'u4', 'd'] },
    ];
    expect(mergeInserts(batches)).toEqual(batches);
  });

  const retitle = 'UPDATE `individuals` SET `primary_title` = ?, `updated` = ?, `version` = `version` + 1 WHERE `site_id` = ? AND `id` = ?';
  const rename = 'UPDATE `individuals` SET `first_name` = ?, `version` = `version` + 1 WHERE `site_id` = ? AND `id` = ?';

  it('merges the updates by id of one text into one UPDATE setting each row its own values, in the place of the last of them', () => {
    const batches = [
      { sql: retitle, params: ['Lead', 'd1', 's', 'i1'] },
      { sql: users, params: ['u3', 'cy'] },
      { sql: retitle, params: ['Chief', 'd2', 's', 'i2'] },
      { sql: users, params: ['u4', 'di'] },
    ];
    expect(mergeInserts(batches)).toEqual([
      { sql: `${users}, (?, ?)`, params: ['u3', 'cy', 'u4', 'di'] },
      {
        sql:
          'UPDATE `individuals` SET `primary_title` = CASE `id` WHEN ? THEN ? WHEN ? THEN ? END, `updated` = CASE `id` WHEN ? THEN ? WHEN ? THEN ? END, ' +
          '`version` = `version` + 1 WHERE `site_id` = ? AND `id` IN (?, ?)',
        params: ['i1', 'Lead', 'i2', 'Chief', 'i1', 'd1', 'i2', 'd2', 's', 'i1', 'i2'],
      },
    ]);
  });

  it('sends a value every row of a merged update gets once, not a CASE of the same value for each row', () => {
    const stamp = 'UPDATE `individuals` SET `primary_title` = ?, `updated` = ?, `updated_by` = ?, `version` = `version` + 1 WHERE `site_id` = ? AND `id` = ?';
    const at = new Date('2026-11-30T03:00:00.000Z');
    const merged = mergeInserts([
      { sql: stamp, params: ['Lead', at, 'admin', 's', 'i1'] },
      { sql: stamp, params: ['Chief', new Date(at.getTime()), 'admin', 's', 'i2'] },
      { sql: stamp, params: ['Lead', new Date(at.getTime() + 1), 'admin', 's', 'i3'] },
    ]);
    expect(merged).toEqual([
      {
        sql:
          'UPDATE `individuals` SET `primary_title` = CASE `id` WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? END, ' +
          '`updated` = CASE `id` WHEN ? THEN ? WHEN ? THEN ? WHEN ? THEN ? END, `updated_by` = ?, `version` = `version` + 1 WHERE `site_id` = ? AND `id` IN (?, ?, ?)',
        params: ['i1', 'Lead', 'i2', 'Chief', 'i3', 'Lead', 'i1', at, 'i2', at, 'i3', new Date(at.getTime() + 1), 'admin', 's', 'i1', 'i2', 'i3'],
      },
    ]);
    // The same instant in two Date objects is one value.
    const sameInstant = mergeInserts([
      { sql: stamp, params: ['Lead', at, 'admin', 's', 'i1'] },
      { sql: stamp, params: ['Lead', new Date(at.getTime()), 'admin', 's', 'i2'] },
    ]);
    expect(sameInstant[0].sql).toBe(
      'UPDATE `individuals` SET `primary_title` = ?, `updated` = ?, `updated_by` = ?, `version` = `version` + 1 WHERE `site_id` = ? AND `id` IN (?, ?)',
    );
    expect(sameInstant[0].params).toEqual(['Lead', at, 'admin', 's', 'i1', 'i2']);
  });

  it('keeps the updates of a table apart when one of its rows is updated twice in the run (their order matters)', () => {
    const batches = [
      { sql: retitle, params: ['Lead', 'd1', 's', 'i1'] },
      { sql: rename, params: ['Ann', 's', 'i1'] },
      { sql: retitle, params: ['Chief', 'd2', 's', 'i2'] },
    ];
    expect(mergeInserts(batches)).toEqual(batches);
  });

  it('keeps the updates of different sites apart, and a row inserted in the run before its update', () => {
    const insert = 'INSERT INTO `individuals` (`id`, `first_name`) VALUES (?, ?)';
    const sites = [
      { sql: retitle, params: ['Lead', 'd1', 's1', 'i1'] },
      { sql: retitle, params: ['Chief', 'd2', 's2', 'i2'] },
    ];
    expect(mergeInserts(sites)).toEqual(sites);
    const merged = mergeInserts([
      { sql: insert, params: ['i9', 'Ann'] },
      { sql: retitle, params: ['Lead', 'd1', 's', 'i9'] },
      { sql: insert, params: ['i8', 'Bob'] },
      { sql: retitle, params: ['Chief', 'd2', 's', 'i1'] },
    ]);
    expect(merged.map((b) => b.sql.slice(0, 22))).toEqual(['INSERT INTO `individua', 'UPDATE `individuals` S']);
    expect(merged[0].params).toEqual(['i9', 'Ann', 'i8', 'Bob']);
  });

  it('answers a lone statement, and nothing, as given', () => {
    expect(mergeInserts([{ sql: users, params: ['u1', 'ada'] }])).toEqual([{ sql: users, params: ['u1', 'ada'] }]);
    expect(mergeInserts([])).toEqual([]);
  });
});
