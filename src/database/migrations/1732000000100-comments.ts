import { m, tablesMigration } from './schema-helpers.js';

export const Comments1732000000100 = tablesMigration('Comments1732000000100', () => [
  m.tenantTable({
    name: 'comments',
    columns: [m.guid('ancestor_id'), m.str('ancestor_type', 20, false), m.text('body', false), m.guid('author_id', true)],
    softDelete: true,
    indices: [
      m.index('ix_comments_site_ancestor', ['site_id', 'ancestor_type', 'ancestor_id', 'deleted', 'created']),
      m.index('ix_comments_site_author', ['site_id', 'author_id', 'created']),
    ],
  }),
]);
