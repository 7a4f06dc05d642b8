import { DataSource } from 'typeorm';
import { JsonLogger } from '../common/logging/json-logger.js';
import { dataSourceOptions } from './data-source.js';
import { hasPendingMigrations, migrateAtStart } from './migrate-apart.js';

/** The start-up's migrations (docs/performance.md, "Migrations apart from the serving heap"). */
describe('migrations at start', () => {
  const config = {
    database: { kind: 'sqlite' as const, file: ':memory:' },
    dbQueryTimeoutMs: 10_000,
    dbAcquireTimeoutMs: 10_000,
    migrationLockTimeoutMs: 10_000,
    logLevel: 'error' as const,
  };
  let sut: DataSource;
  beforeEach(async () => {
    sut = await new DataSource(dataSourceOptions(config)).initialize();
  });
  afterEach(() => sut.destroy());

  const tables = async () => ((await sut.query("SELECT name FROM sqlite_master WHERE type = 'table'")) as { name: string }[]).map((t) => t.name);

  it('a new database has pending migrations, and asking creates nothing (not even the migrations table)', async () => {
    expect(await hasPendingMigrations(sut)).toBe(true);
    expect(await tables()).toEqual([]);
  });

  it('after the migrations nothing is pending; one recorded migration removed is pending again', async () => {
    await sut.runMigrations({ transaction: 'each' });
    expect(await hasPendingMigrations(sut)).toBe(false);
    await sut.query('DELETE FROM schema_migrations WHERE id = (SELECT MAX(id) FROM schema_migrations)');
    expect(await hasPendingMigrations(sut)).toBe(true);
  });

  it('in memory they run in the service (a worker could not reach that database), then there is nothing to run', async () => {
    const logger = new JsonLogger('error');
    expect(await migrateAtStart(sut, config, logger)).toBe('in-process');
    expect(await tables()).toEqual(expect.arrayContaining(['schema_migrations', 'sites', 'individuals']));
    expect(await migrateAtStart(sut, config, logger)).toBe('none');
  });
});
