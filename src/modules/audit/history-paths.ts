/** The collections with a `GET /v4/{kind}/{id}/history` route (record-kinds.ts holds how each is read). */
export const HISTORY_PATHS = [
  'individuals',
  'organizations',
  'departments',
  'periods',
  'projects',
  'goals',
  'colors',
  'basicroles',
  'dialogs',
  'tasks',
  'assessments',
  'metrics',
  'archives',
  'permissions',
  'securitygroups',
] as const;
