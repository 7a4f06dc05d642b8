import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * A dialog's basic-role ratings become a queried list (`GET /v4/dialogs/{dialogid}/basicroledialogs
 * ?filter=…&sort=…`, docs/queries.md). Its filterable fields are ID (the primary key), BasicRoleID
 * (ux_basic_role_dialogs_pair, site first), DialogID, Rating, Created and Updated; the last three
 * are sortable. The list is always one dialog's, so each index is the site, the dialog, then the
 * order: `ix_basic_role_dialogs_site_dialog (site_id, dialog_id)` is replaced by
 * `ix_basic_role_dialogs_site_dialog_created (site_id, dialog_id, created)`, which serves what it
 * served and holds the list's own order (oldest first, no sort of the page), and Rating (then
 * Created) and Updated have one each. An index built beforehand with these columns (Galera RSU,
 * docs/scaling.md) is found and kept.
 */
const TABLE = 'basic_role_dialogs';
const NEW: readonly { name: string; columns: string[] }[] = [
  { name: 'ix_basic_role_dialogs_site_dialog_created', columns: ['site_id', 'dialog_id', 'created'] },
  { name: 'ix_basic_role_dialogs_site_dialog_rating', columns: ['site_id', 'dialog_id', 'rating', 'created'] },
  { name: 'ix_basic_role_dialogs_site_dialog_updated', columns: ['site_id', 'dialog_id', 'updated'] },
];
const OLD = { name: 'ix_basic_role_dialogs_site_dialog', columns: ['site_id', 'dialog_id'] };

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class BasicRoleDialogListQueryIndexes1732000003210 implements MigrationInterface {
  name = 'BasicRoleDialogListQueryIndexes1732000003210';

  async up(q: QueryRunner): Promise<void> {
    for (const { name, columns } of NEW) {
      const found = (await q.getTable(TABLE))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(TABLE, name);
      await q.createIndex(TABLE, new TableIndex({ name, columnNames: columns }));
    }
    // Dropped once its replacement is built: the list and the dialog's look-ups are served throughout.
    if ((await q.getTable(TABLE))?.indices.some((i) => i.name === OLD.name)) await q.dropIndex(TABLE, OLD.name);
  }

  async down(q: QueryRunner): Promise<void> {
    await q.createIndex(TABLE, new TableIndex({ name: OLD.name, columnNames: OLD.columns }));
    for (const { name } of [...NEW].reverse()) await q.dropIndex(TABLE, name);
  }
}
