import { MigrationInterface, QueryRunner, TableIndex } from 'typeorm';

/**
 * The indexes behind the fields of the dialog and comment lists, which took `filter=` and `sort=`
 * after the lists of 1732000002610 and 1732000002620 (docs/queries.md): each starts with site_id and
 * the list's own scope, then the field, so a filter on it reads only the index entries it selects
 * and a sort on it walks the index in order and stops after the page.
 *
 * Dialogs, listed for the site in a period (and `deleted`): ScheduledDate (the list's own order)
 * and OccurredDate in that scope; ID, Kind and AncestorID had theirs (primary key,
 * ix_dialogs_site_ancestor), and LeaderID ix_dialogs_site_leader, which with ix_dialogs_site_ancestor
 * also serves an individual's dialogs (those they lead, those about them). Comments, listed under
 * their record and by author (`me/comments`): the author's list gets `deleted` before Created;
 * the record's had ix_comments_site_ancestor_last (AncestorType, AncestorID, Deleted, Created, ID).
 * List items (accountabilities, evaluation criteria, supervisory and project scopes), listed per
 * kind and owner: Name; Rank (then Name) had ix_list_items_site_ancestor.
 * An index built beforehand with these columns (Galera RSU, docs/scaling.md) is found and kept.
 */
const INDEXES: readonly { table: string; name: string; columns: string[] }[] = [
  { table: 'dialogs', name: 'ix_dialogs_site_period_scheduled', columns: ['site_id', 'period_id', 'deleted', 'scheduled_date'] },
  { table: 'dialogs', name: 'ix_dialogs_site_period_occurred', columns: ['site_id', 'period_id', 'deleted', 'occurred_date'] },
  { table: 'comments', name: 'ix_comments_site_author_live', columns: ['site_id', 'author_id', 'deleted', 'created'] },
  { table: 'list_items', name: 'ix_list_items_site_ancestor_name', columns: ['site_id', 'kind', 'ancestor_id', 'deleted', 'name'] },
];

const same = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((c, i) => c === b[i]);

export class DialogCommentListQueryIndexes1732000002800 implements MigrationInterface {
  name = 'DialogCommentListQueryIndexes1732000002800';

  async up(q: QueryRunner): Promise<void> {
    for (const { table, name, columns } of INDEXES) {
      const found = (await q.getTable(table))?.indices.find((i) => i.name === name);
      if (found && same(found.columnNames, columns)) continue;
      if (found) await q.dropIndex(table, name);
      await q.createIndex(table, new TableIndex({ name, columnNames: columns }));
    }
  }

  async down(q: QueryRunner): Promise<void> {
    for (const { table, name } of [...INDEXES].reverse()) await q.dropIndex(table, name);
  }
}
