import { AuditLogActorIndex1732000002500 } from '../../src/database/migrations/1732000002500-audit-log-actor-index.js';
import { startApp, type TestApp } from './harness.js';

/**
 * The audit trail's index by actor (docs/scaling.md): the migration builds it, and finds it
 * instead when an operator built it beforehand (node by node on Galera), so the release's
 * migration then does nothing; its revert drops it.
 */
describe('migration AuditLogActorIndex1732000002500', () => {
  let t: TestApp;
  beforeAll(async () => {
    t = await startApp();
  });
  afterAll(() => t?.close());

  const indexNames = async () => {
    const q = t.ds.createQueryRunner();
    try {
      return (await q.getTable('audit_log'))!.indices.map((i) => ({ name: i.name, columns: i.columnNames }));
    } finally {
      await q.release();
    }
  };
  const run = async (step: 'up' | 'down') => {
    const q = t.ds.createQueryRunner();
    try {
      await new AuditLogActorIndex1732000002500()[step](q);
    } finally {
      await q.release();
    }
  };

  it('is applied: the index leads with the site, then the actor and the sequence', async () => {
    expect(await indexNames()).toContainEqual({ name: 'ix_audit_log_actor', columns: ['site_id', 'actor_id', 'seq'] });
  });

  it('reverts, applies again, and finds an index built beforehand instead of failing', async () => {
    await run('down');
    expect((await indexNames()).map((i) => i.name)).not.toContain('ix_audit_log_actor');
    await run('up');
    expect((await indexNames()).filter((i) => i.name === 'ix_audit_log_actor')).toHaveLength(1);
    // Already there (built by hand): nothing to do, no error.
    await run('up');
    expect((await indexNames()).filter((i) => i.name === 'ix_audit_log_actor')).toHaveLength(1);
  });
});
