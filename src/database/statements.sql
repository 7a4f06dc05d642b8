-- Every SQL statement the service writes by hand, as declared with src/database/statements.ts: its name,
-- the file that declares it and its text (a family: the text of each sample of its arguments).
-- Written by `npm run sql:snapshot`; src/database/statements-snapshot.spec.ts fails when it no longer
-- matches the declarations. Whitespace is the formatter's; the text sent is the declaration's.
--
-- Not here: the kept statements of simple finds, inserts and updates (built from the entities,
-- src/database/kept-sql.ts, kept-writes.ts), the audit trail the journal writes with each commit
-- (src/database/journal.ts), migrations, and the machinery of the connection (ping, migration lock,
-- data source setup, character set check).
--
-- 68 statements, 52 families (100 samples).

-- audit.by-seqs (family)
-- src/database/queries/audit.ts
-- audit.by-seqs(1)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND seq IN (?);
-- audit.by-seqs(3)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND seq IN (?, ?, ?);

-- audit.changes-after (family)
-- src/database/queries/audit.ts
-- audit.changes-after(null)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND seq > ?
ORDER BY
  seq
LIMIT
  ?;
-- audit.changes-after(1)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND kind IN (?)
  AND seq > ?
ORDER BY
  seq
LIMIT
  ?;
-- audit.changes-after(3)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND kind IN (?, ?, ?)
  AND seq > ?
ORDER BY
  seq
LIMIT
  ?;

-- audit.current-sequence
-- src/database/queries/audit.ts
SELECT
  seq
FROM
  change_seqs
WHERE
  site_id = ?;

-- audit.first-since
-- src/database/queries/audit.ts
SELECT
  MIN(seq) AS seq
FROM
  audit_log
WHERE
  site_id = ?
  AND at >= ?;

-- audit.oldest
-- src/database/queries/audit.ts
SELECT
  seq,
  at
FROM
  audit_log
WHERE
  site_id = ?
ORDER BY
  seq
LIMIT
  1;

-- audit.page (family)
-- src/database/queries/audit.ts
-- audit.page(0)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
ORDER BY
  seq DESC
LIMIT
  ?
OFFSET
  ?;
-- audit.page(1)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND row_id = ?
ORDER BY
  seq DESC
LIMIT
  ?
OFFSET
  ?;
-- audit.page(63)
SELECT
  site_id,
  seq,
  kind,
  row_id,
  action,
  gone,
  changes,
  actor_id,
  actor_kind,
  actor_name,
  request_id,
  at
FROM
  audit_log
WHERE
  site_id = ?
  AND row_id = ?
  AND kind = ?
  AND actor_id = ?
  AND at >= ?
  AND at < ?
  AND seq < ?
ORDER BY
  seq DESC
LIMIT
  ?
OFFSET
  ?;

-- audit.prunable
-- src/database/queries/audit.ts
SELECT
  seq
FROM
  audit_log
WHERE
  site_id = ?
  AND seq <= ?
  AND at < ?
ORDER BY
  seq
LIMIT
  ?;

-- audit.prune
-- src/database/queries/audit.ts
DELETE FROM audit_log
WHERE
  site_id = ?
  AND seq <= ?
  AND at < ?;

-- audit.summaries-cursor
-- src/database/queries/audit.ts
SELECT
  built_seq AS seq
FROM
  dashboard_summary_state
WHERE
  site_id = ?
  AND built_seq >= 0;

-- audit.webhooks-cursor
-- src/database/queries/audit.ts
SELECT
  MIN(cursor_seq) AS seq
FROM
  webhooks
WHERE
  site_id = ?
  AND active = ?;

-- basic-roles.counts-of (family)
-- src/database/queries/basic-roles.ts
-- basic-roles.counts-of(1)
SELECT
  b.individual_id AS individualId,
  COUNT(*) AS n
FROM
  basic_roles b
WHERE
  b.site_id = ?
  AND b.deleted = 0
  AND b.individual_id IN (?)
GROUP BY
  b.individual_id;
-- basic-roles.counts-of(3)
SELECT
  b.individual_id AS individualId,
  COUNT(*) AS n
FROM
  basic_roles b
WHERE
  b.site_id = ?
  AND b.deleted = 0
  AND b.individual_id IN (?, ?, ?)
GROUP BY
  b.individual_id;

-- basic-roles.counts-page (family)
-- src/database/queries/basic-roles.ts
-- basic-roles.counts-page(0)
SELECT
  i.id AS individualId,
  i.first_name AS firstName,
  i.last_name AS lastName,
  (
    SELECT
      COUNT(*)
    FROM
      basic_roles b
    WHERE
      b.site_id = i.site_id
      AND b.individual_id = i.id
      AND b.deleted = 0
  ) AS basicRolesCount,
  COUNT(*) OVER () AS total
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.deleted = 0
ORDER BY
  i.last_name,
  i.first_name,
  i.id
LIMIT
  ?
OFFSET
  ?;
-- basic-roles.counts-page(2)
SELECT
  i.id AS individualId,
  i.first_name AS firstName,
  i.last_name AS lastName,
  (
    SELECT
      COUNT(*)
    FROM
      basic_roles b
    WHERE
      b.site_id = i.site_id
      AND b.individual_id = i.id
      AND b.deleted = 0
  ) AS basicRolesCount,
  COUNT(*) OVER () AS total
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.deleted = 0
  AND i.id NOT IN (?, ?)
ORDER BY
  i.last_name,
  i.first_name,
  i.id
LIMIT
  ?
OFFSET
  ?;

-- basic-roles.counts-total (family)
-- src/database/queries/basic-roles.ts
-- basic-roles.counts-total(0)
SELECT
  COUNT(*) AS total
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.deleted = 0;
-- basic-roles.counts-total(2)
SELECT
  COUNT(*) AS total
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.deleted = 0
  AND i.id NOT IN (?, ?);

-- comment-authors.keep-names
-- src/database/queries/comment-authors.ts
UPDATE comments
SET
  author_first_name = ?,
  author_last_name = ?
WHERE
  site_id = ?
  AND author_id = ?;

-- comment-authors.names-locked (family)
-- src/database/queries/comment-authors.ts
-- comment-authors.names-locked('mysql')
SELECT
  first_name,
  last_name
FROM
  individuals
WHERE
  site_id = ?
  AND id = ? LOCK IN SHARE MODE;
-- comment-authors.names-locked('sqlite')
SELECT
  first_name,
  last_name
FROM
  individuals
WHERE
  site_id = ?
  AND id = ?;

-- dashboard-summaries.built
-- src/modules/dashboards/dashboard-summaries.statements.ts
UPDATE dashboard_summary_state
SET
  built_seq = ?,
  time_at = ?,
  valid_until = ?
WHERE
  site_id = ?;

-- dashboard-summaries.committed-sequence
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  seq
FROM
  change_seqs
WHERE
  site_id = ?;

-- dashboard-summaries.current-states (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.current-states('individual', 2)
SELECT
  id
FROM
  individuals
WHERE
  site_id = ?
  AND id IN (?, ?);
-- dashboard-summaries.current-states('commitment', 2)
SELECT
  id,
  type AS Type,
  ancestor_id AS AncestorID
FROM
  commitments
WHERE
  site_id = ?
  AND id IN (?, ?);
-- dashboard-summaries.current-states('basic-role-dialog', 2)
SELECT
  id,
  basic_role_id AS BasicRoleID,
  dialog_id AS DialogID
FROM
  basic_role_dialogs
WHERE
  site_id = ?
  AND id IN (?, ?);

-- dashboard-summaries.delete (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.delete(3)
DELETE FROM dashboard_summaries
WHERE
  site_id = ?
  AND period_id = ?
  AND row_type = ?
  AND row_id IN (?, ?, ?);

-- dashboard-summaries.dialog-role-people (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.dialog-role-people(2)
SELECT DISTINCT
  br.individual_id AS id
FROM
  basic_role_dialogs x
  JOIN basic_roles br ON br.site_id = x.site_id
  AND br.id = x.basic_role_id
WHERE
  x.site_id = ?
  AND x.dialog_id IN (?, ?);

-- dashboard-summaries.drop-other-periods (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.drop-other-periods(0)
DELETE FROM dashboard_summaries
WHERE
  site_id = ?;
-- dashboard-summaries.drop-other-periods(2)
DELETE FROM dashboard_summaries
WHERE
  site_id = ?
  AND period_id NOT IN (?, ?);

-- dashboard-summaries.due
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  u.id,
  u.built_seq,
  u.time_at,
  u.valid_until,
  u.cur
FROM
  (
    SELECT
      c.site_id AS id,
      st.built_seq,
      st.time_at,
      st.valid_until,
      c.seq AS cur
    FROM
      change_seqs c
      LEFT JOIN dashboard_summary_state st ON st.site_id = c.site_id
    WHERE
      (
        st.site_id IS NULL
        OR st.built_seq < 0
        OR st.built_seq < c.seq
        OR st.valid_until <= ?
      )
      AND (
        st.lease_until IS NULL
        OR st.lease_until < ?
      )
    UNION
    SELECT
      st.site_id AS id,
      st.built_seq,
      st.time_at,
      st.valid_until,
      COALESCE(c.seq, 0) AS cur
    FROM
      dashboard_summary_state st
      LEFT JOIN change_seqs c ON c.site_id = st.site_id
    WHERE
      st.built_seq < 0
      AND (
        st.lease_until IS NULL
        OR st.lease_until < ?
      )
  ) u
LIMIT
  ?;

-- dashboard-summaries.insert (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.insert(2)
INSERT INTO
  dashboard_summaries (site_id, period_id, row_type, row_id, sums)
VALUES
  (?, ?, ?, ?, ?),
  (?, ?, ?, ?, ?);

-- dashboard-summaries.lease
-- src/modules/dashboards/dashboard-summaries.statements.ts
UPDATE dashboard_summary_state
SET
  lease_owner = ?,
  lease_until = ?
WHERE
  site_id = ?
  AND (
    lease_until IS NULL
    OR lease_until < ?
  );

-- dashboard-summaries.live-rows (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.live-rows('individuals', null)
SELECT
  id,
  39 AS rt
FROM
  individuals
WHERE
  site_id = ?
  AND deleted = 0
ORDER BY
  id;
-- dashboard-summaries.live-rows('organizations', 2)
SELECT
  id,
  row_type AS rt
FROM
  organizations
WHERE
  site_id = ?
  AND deleted = 0
  AND id IN (?, ?);

-- dashboard-summaries.memberships (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.memberships(2)
SELECT
  individual_id,
  organization_id
FROM
  organization_members
WHERE
  site_id = ?
  AND individual_id IN (?, ?);

-- dashboard-summaries.move-cursor
-- src/modules/dashboards/dashboard-summaries.statements.ts
UPDATE dashboard_summary_state
SET
  built_seq = ?,
  time_at = ?,
  valid_until = ?,
  lease_owner = NULL,
  lease_until = NULL
WHERE
  site_id = ?
  AND lease_owner = ?;

-- dashboard-summaries.new-state (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.new-state('mysql')
INSERT IGNORE INTO
  dashboard_summary_state (site_id, built_seq)
VALUES
  (?, -1);
-- dashboard-summaries.new-state('sqlite')
INSERT
  OR IGNORE INTO dashboard_summary_state (site_id, built_seq)
VALUES
  (?, -1);

-- dashboard-summaries.next-period-end
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  MIN(end_date) AS v
FROM
  periods
WHERE
  site_id = ?
  AND end_date > ?;

-- dashboard-summaries.next-project-due
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  MIN(due_date) AS v
FROM
  projects
WHERE
  site_id = ?
  AND deleted = 0
  AND completed_date IS NULL
  AND due_date >= ?;

-- dashboard-summaries.next-task-due
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  MIN(due_date) AS v
FROM
  tasks
WHERE
  site_id = ?
  AND deleted = 0
  AND due_date > ?;

-- dashboard-summaries.periods-ended
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  COUNT(*) AS n
FROM
  periods
WHERE
  site_id = ?
  AND end_date >= ?
  AND end_date <= ?;

-- dashboard-summaries.primary-members (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.primary-members(2)
SELECT
  id,
  primary_organization_id
FROM
  individuals
WHERE
  site_id = ?
  AND deleted = 0
  AND primary_organization_id IN (?, ?);

-- dashboard-summaries.projects-fallen-due
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  id
FROM
  projects
WHERE
  site_id = ?
  AND deleted = 0
  AND completed_date IS NULL
  AND due_date >= ?
  AND due_date <= ?;

-- dashboard-summaries.read (family)
-- src/modules/dashboards/dashboard-summaries.statements.ts
-- dashboard-summaries.read([2])
SELECT
  row_type,
  row_id,
  sums
FROM
  dashboard_summaries
WHERE
  site_id = ?
  AND period_id = ?
  AND (
    (
      row_type = ?
      AND row_id IN (?, ?)
    )
  );
-- dashboard-summaries.read([1, 3])
SELECT
  row_type,
  row_id,
  sums
FROM
  dashboard_summaries
WHERE
  site_id = ?
  AND period_id = ?
  AND (
    (
      row_type = ?
      AND row_id IN (?)
    )
    OR (
      row_type = ?
      AND row_id IN (?, ?, ?)
    )
  );

-- dashboard-summaries.release
-- src/modules/dashboards/dashboard-summaries.statements.ts
UPDATE dashboard_summary_state
SET
  lease_owner = NULL,
  lease_until = NULL
WHERE
  site_id = ?
  AND lease_owner = ?;

-- dashboard-summaries.renew
-- src/modules/dashboards/dashboard-summaries.statements.ts
UPDATE dashboard_summary_state
SET
  lease_owner = ?,
  lease_until = ?
WHERE
  site_id = ?
  AND lease_owner = ?;

-- dashboard-summaries.site-periods
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  id,
  start_date,
  end_date
FROM
  periods
WHERE
  site_id = ?
ORDER BY
  id;

-- dashboard-summaries.site-sequence
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  (
    SELECT
      c.seq
    FROM
      change_seqs c
    WHERE
      c.site_id = ?
  ) AS cur,
  (
    SELECT
      MAX(a.seq)
    FROM
      audit_log a
    WHERE
      a.site_id = ?
      AND a.actor_id = ?
  ) AS mine,
  st.built_seq,
  st.time_at,
  st.valid_until
FROM
  (
    SELECT
      1 AS one
  ) x
  LEFT JOIN dashboard_summary_state st ON st.site_id = ?;

-- dashboard-summaries.site-units
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT
  id,
  parent_id
FROM
  organizations
WHERE
  site_id = ?;

-- dashboard-summaries.tasks-fallen-due
-- src/modules/dashboards/dashboard-summaries.statements.ts
SELECT DISTINCT
  kind,
  ancestor_id
FROM
  tasks
WHERE
  site_id = ?
  AND deleted = 0
  AND due_date >= ?
  AND due_date <= ?;

-- dashboards.aggregates (family)
-- src/modules/dashboards/dashboards.statements.ts
-- dashboards.aggregates('site', 'individual', ['a', 'b'], { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, [10 values])
WITH RECURSIVE
  people (root, id) AS (
    SELECT
      i.id,
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.id IN (?, ?)
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      i.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      individuals i
      JOIN organizations o ON o.site_id = i.site_id
      AND o.id = i.primary_organization_id
    WHERE
      i.site_id = ?
      AND i.id IN (?, ?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      up
    WHERE
      depth = 0
      AND row_type = 56
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      p.owner_id,
      p.id
    FROM
      projects p
    WHERE
      p.site_id = ?
      AND p.owner_id IN (?, ?)
      AND p.deleted = 0
  )
SELECT
  x.root AS root,
  'commitments' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'individual'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'department'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'organization'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'dialogs' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'individual'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'department'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'organization'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      projs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'project'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'tasks' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  SUM(x.rated) AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      people s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'individual'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      depts s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'department'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      orgs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'organization'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      projs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'project'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'goals' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(g.id AS CHAR(36)) AS id,
      CASE
        WHEN g.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN goals g ON g.site_id = ?
      AND g.individual_id = s.id
      AND g.period_id = ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'metrics' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS a,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS b,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS c,
  SUM(x.is8020) AS d,
  SUM(
    CASE
      WHEN x.is8020 = 1
      AND ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS e,
  SUM(
    CASE
      WHEN x.is8020 = 0 THEN 0
      WHEN x.num >= x.den THEN 100
      ELSE x.num * 100.0 / x.den
    END
  ) AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      people s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'individual'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
    UNION ALL
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      projs s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'project'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'projects' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.active) AS a,
  SUM(x.ontime) AS b,
  SUM(x.done) AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      x.root AS root,
      x.id AS id,
      x.active AS active,
      x.done AS done,
      CASE
        WHEN (
          x.active = 1
          OR x.done = 1
        )
        AND x.ontime = 1 THEN 1
        ELSE 0
      END AS ontime
    FROM
      (
        SELECT
          s.root AS root,
          CAST(p.id AS CHAR(36)) AS id,
          CASE
            WHEN COALESCE(p.start_date, p.created) <= ?
            AND (
              p.completed_date IS NULL
              OR p.completed_date >= ?
            ) THEN 1
            ELSE 0
          END AS active,
          CASE
            WHEN p.completed_date >= ?
            AND p.completed_date <= ? THEN 1
            ELSE 0
          END AS done,
          CASE
            WHEN p.due_date IS NULL
            OR (
              p.completed_date IS NOT NULL
              AND p.completed_date <= p.due_date
            )
            OR (
              p.completed_date IS NULL
              AND p.due_date >= ?
            ) THEN 1
            ELSE 0
          END AS ontime
        FROM
          projs s
          JOIN projects p ON p.site_id = ?
          AND p.id = s.id
      ) x
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'changes' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  0 AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(ch.id AS CHAR(36)) AS id
    FROM
      projs s
      JOIN project_due_date_changes ch ON ch.site_id = ?
      AND ch.project_id = s.id
      AND ch.created >= ?
      AND ch.created <= ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'ratings' AS src,
  x.akind AS grp,
  CAST(x.ikind AS CHAR(2)) AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'leader' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'leader'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
    UNION ALL
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'team' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'team'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root,
  x.akind,
  x.ikind
UNION ALL
SELECT
  x.root AS root,
  'selfratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'self'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'roleratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(x.id AS CHAR(36)) AS id,
      x.rating AS rating
    FROM
      people s
      JOIN basic_roles br ON br.site_id = ?
      AND br.individual_id = s.id
      JOIN basic_role_dialogs x ON x.site_id = ?
      AND x.basic_role_id = br.id
      AND x.rating IS NOT NULL
      JOIN dialogs d ON d.site_id = ?
      AND d.id = x.dialog_id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root;
-- dashboards.aggregates('site', 'individual', ['a'], { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, ['projects', 'changes'])
WITH RECURSIVE
  people (root, id) AS (
    SELECT
      i.id,
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.id IN (?)
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      i.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      individuals i
      JOIN organizations o ON o.site_id = i.site_id
      AND o.id = i.primary_organization_id
    WHERE
      i.site_id = ?
      AND i.id IN (?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      up
    WHERE
      depth = 0
      AND row_type = 56
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      p.owner_id,
      p.id
    FROM
      projects p
    WHERE
      p.site_id = ?
      AND p.owner_id IN (?)
      AND p.deleted = 0
  )
SELECT
  x.root AS root,
  'projects' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.active) AS a,
  SUM(x.ontime) AS b,
  SUM(x.done) AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      x.root AS root,
      x.id AS id,
      x.active AS active,
      x.done AS done,
      CASE
        WHEN (
          x.active = 1
          OR x.done = 1
        )
        AND x.ontime = 1 THEN 1
        ELSE 0
      END AS ontime
    FROM
      (
        SELECT
          s.root AS root,
          CAST(p.id AS CHAR(36)) AS id,
          CASE
            WHEN COALESCE(p.start_date, p.created) <= ?
            AND (
              p.completed_date IS NULL
              OR p.completed_date >= ?
            ) THEN 1
            ELSE 0
          END AS active,
          CASE
            WHEN p.completed_date >= ?
            AND p.completed_date <= ? THEN 1
            ELSE 0
          END AS done,
          CASE
            WHEN p.due_date IS NULL
            OR (
              p.completed_date IS NOT NULL
              AND p.completed_date <= p.due_date
            )
            OR (
              p.completed_date IS NULL
              AND p.due_date >= ?
            ) THEN 1
            ELSE 0
          END AS ontime
        FROM
          projs s
          JOIN projects p ON p.site_id = ?
          AND p.id = s.id
      ) x
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'changes' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  0 AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(ch.id AS CHAR(36)) AS id
    FROM
      projs s
      JOIN project_due_date_changes ch ON ch.site_id = ?
      AND ch.project_id = s.id
      AND ch.created >= ?
      AND ch.created <= ?
  ) x
GROUP BY
  x.root;
-- dashboards.aggregates('site', 'department', ['a', 'b'], { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, [10 values])
WITH RECURSIVE
  scope (root, kind, id, rt) AS (
    SELECT
      o.id,
      1,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?, ?)
    UNION
    SELECT
      s.root,
      1,
      o.id,
      o.row_type
    FROM
      scope s
      JOIN organizations o ON o.site_id = ?
      AND o.parent_id = s.id
      AND o.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      2,
      m.individual_id,
      0
    FROM
      scope s
      JOIN organization_members m ON m.site_id = ?
      AND m.organization_id = s.id
      JOIN individuals i ON i.site_id = m.site_id
      AND i.id = m.individual_id
      AND i.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.organization_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.owner_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 2
  ),
  people (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 2
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 56
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      o.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?, ?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 5
  )
SELECT
  x.root AS root,
  'commitments' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'individual'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'department'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'organization'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'dialogs' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'individual'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'department'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'organization'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      projs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'project'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'tasks' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  SUM(x.rated) AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      people s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'individual'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      depts s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'department'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      orgs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'organization'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      projs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'project'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'goals' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(g.id AS CHAR(36)) AS id,
      CASE
        WHEN g.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN goals g ON g.site_id = ?
      AND g.individual_id = s.id
      AND g.period_id = ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'metrics' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS a,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS b,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS c,
  SUM(x.is8020) AS d,
  SUM(
    CASE
      WHEN x.is8020 = 1
      AND ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS e,
  SUM(
    CASE
      WHEN x.is8020 = 0 THEN 0
      WHEN x.num >= x.den THEN 100
      ELSE x.num * 100.0 / x.den
    END
  ) AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      people s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'individual'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
    UNION ALL
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      projs s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'project'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'projects' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.active) AS a,
  SUM(x.ontime) AS b,
  SUM(x.done) AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      x.root AS root,
      x.id AS id,
      x.active AS active,
      x.done AS done,
      CASE
        WHEN (
          x.active = 1
          OR x.done = 1
        )
        AND x.ontime = 1 THEN 1
        ELSE 0
      END AS ontime
    FROM
      (
        SELECT
          s.root AS root,
          CAST(p.id AS CHAR(36)) AS id,
          CASE
            WHEN COALESCE(p.start_date, p.created) <= ?
            AND (
              p.completed_date IS NULL
              OR p.completed_date >= ?
            ) THEN 1
            ELSE 0
          END AS active,
          CASE
            WHEN p.completed_date >= ?
            AND p.completed_date <= ? THEN 1
            ELSE 0
          END AS done,
          CASE
            WHEN p.due_date IS NULL
            OR (
              p.completed_date IS NOT NULL
              AND p.completed_date <= p.due_date
            )
            OR (
              p.completed_date IS NULL
              AND p.due_date >= ?
            ) THEN 1
            ELSE 0
          END AS ontime
        FROM
          projs s
          JOIN projects p ON p.site_id = ?
          AND p.id = s.id
      ) x
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'changes' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  0 AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(ch.id AS CHAR(36)) AS id
    FROM
      projs s
      JOIN project_due_date_changes ch ON ch.site_id = ?
      AND ch.project_id = s.id
      AND ch.created >= ?
      AND ch.created <= ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'ratings' AS src,
  x.akind AS grp,
  CAST(x.ikind AS CHAR(2)) AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'leader' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'leader'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
    UNION ALL
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'team' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'team'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root,
  x.akind,
  x.ikind
UNION ALL
SELECT
  x.root AS root,
  'selfratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'self'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'roleratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(x.id AS CHAR(36)) AS id,
      x.rating AS rating
    FROM
      people s
      JOIN basic_roles br ON br.site_id = ?
      AND br.individual_id = s.id
      JOIN basic_role_dialogs x ON x.site_id = ?
      AND x.basic_role_id = br.id
      AND x.rating IS NOT NULL
      JOIN dialogs d ON d.site_id = ?
      AND d.id = x.dialog_id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root;
-- dashboards.aggregates('site', 'organization', ['a'], { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, [10 values])
WITH RECURSIVE
  scope (root, kind, id, rt) AS (
    SELECT
      o.id,
      1,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?)
    UNION
    SELECT
      s.root,
      1,
      o.id,
      o.row_type
    FROM
      scope s
      JOIN organizations o ON o.site_id = ?
      AND o.parent_id = s.id
      AND o.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      2,
      m.individual_id,
      0
    FROM
      scope s
      JOIN organization_members m ON m.site_id = ?
      AND m.organization_id = s.id
      JOIN individuals i ON i.site_id = m.site_id
      AND i.id = m.individual_id
      AND i.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.organization_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.owner_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 2
  ),
  people (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 2
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 56
  ),
  orgs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 4
  ),
  projs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 5
  )
SELECT
  x.root AS root,
  'commitments' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'individual'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'department'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(c.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN c.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN commitments c ON c.site_id = ?
      AND c.type = 'organization'
      AND c.ancestor_id = s.id
      AND c.period_id = ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'dialogs' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'individual'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      depts s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'department'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      orgs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'organization'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
    UNION ALL
    SELECT
      s.root AS root,
      CAST(d.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN d.occurred_date IS NOT NULL THEN 1
        ELSE 0
      END AS done
    FROM
      projs s
      JOIN dialogs d ON d.site_id = ?
      AND d.kind = 'project'
      AND d.ancestor_id = s.id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'tasks' AS src,
  x.lvl AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  SUM(x.rated) AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'individual' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      people s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'individual'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'department' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      depts s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'department'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'organization' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      orgs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'organization'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
    UNION ALL
    SELECT
      s.root AS root,
      CAST(t.id AS CHAR(36)) AS id,
      'project' AS lvl,
      CASE
        WHEN t.completed = 1
        AND t.completed_date <= ? THEN 1
        ELSE 0
      END AS done,
      CASE
        WHEN (
          t.completed = 1
          AND t.completed_date <= ?
        )
        OR t.due_date <= ?
        OR (
          t.due_date IS NULL
          AND ? = 1
        ) THEN 1
        ELSE 0
      END AS rated
    FROM
      projs s
      JOIN tasks t ON t.site_id = ?
      AND t.kind = 'project'
      AND t.ancestor_id = s.id
      AND t.deleted = 0
      AND t.created >= ?
      AND t.created <= ?
  ) x
GROUP BY
  x.root,
  x.lvl
UNION ALL
SELECT
  x.root AS root,
  'goals' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.done) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(g.id AS CHAR(36)) AS id,
      CASE
        WHEN g.completed = 1 THEN 1
        ELSE 0
      END AS done
    FROM
      people s
      JOIN goals g ON g.site_id = ?
      AND g.individual_id = s.id
      AND g.period_id = ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'metrics' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS a,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS b,
  SUM(
    CASE
      WHEN ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6)
      AND NOT ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS c,
  SUM(x.is8020) AS d,
  SUM(
    CASE
      WHEN x.is8020 = 1
      AND ROUND(x.num * 100, 6) >= ROUND(x.den * ?, 6) THEN 1
      ELSE 0
    END
  ) AS e,
  SUM(
    CASE
      WHEN x.is8020 = 0 THEN 0
      WHEN x.num >= x.den THEN 100
      ELSE x.num * 100.0 / x.den
    END
  ) AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      people s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'individual'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
    UNION ALL
    SELECT
      s.root AS root,
      CAST(m.id AS CHAR(36)) AS id,
      CASE
        WHEN m.is_8020 = 1 THEN 1
        ELSE 0
      END AS is8020,
      CASE
        WHEN m.higher_is_better = 1 THEN v.actual
        ELSE m.target
      END AS num,
      CASE
        WHEN m.higher_is_better = 1 THEN m.target
        ELSE v.actual
      END AS den
    FROM
      projs s
      JOIN metrics m ON m.site_id = ?
      AND m.kind = 'project'
      AND m.ancestor_id = s.id
      AND m.deleted = 0
      JOIN metric_values v ON v.site_id = ?
      AND v.metric_id = m.id
      AND v.period_id = ?
    WHERE
      m.target > 0
      AND (
        m.higher_is_better = 1
        OR v.actual > 0
      )
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'projects' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.active) AS a,
  SUM(x.ontime) AS b,
  SUM(x.done) AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      x.root AS root,
      x.id AS id,
      x.active AS active,
      x.done AS done,
      CASE
        WHEN (
          x.active = 1
          OR x.done = 1
        )
        AND x.ontime = 1 THEN 1
        ELSE 0
      END AS ontime
    FROM
      (
        SELECT
          s.root AS root,
          CAST(p.id AS CHAR(36)) AS id,
          CASE
            WHEN COALESCE(p.start_date, p.created) <= ?
            AND (
              p.completed_date IS NULL
              OR p.completed_date >= ?
            ) THEN 1
            ELSE 0
          END AS active,
          CASE
            WHEN p.completed_date >= ?
            AND p.completed_date <= ? THEN 1
            ELSE 0
          END AS done,
          CASE
            WHEN p.due_date IS NULL
            OR (
              p.completed_date IS NOT NULL
              AND p.completed_date <= p.due_date
            )
            OR (
              p.completed_date IS NULL
              AND p.due_date >= ?
            ) THEN 1
            ELSE 0
          END AS ontime
        FROM
          projs s
          JOIN projects p ON p.site_id = ?
          AND p.id = s.id
      ) x
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'changes' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  0 AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(ch.id AS CHAR(36)) AS id
    FROM
      projs s
      JOIN project_due_date_changes ch ON ch.site_id = ?
      AND ch.project_id = s.id
      AND ch.created >= ?
      AND ch.created <= ?
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'ratings' AS src,
  x.akind AS grp,
  CAST(x.ikind AS CHAR(2)) AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'leader' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'leader'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
    UNION ALL
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      'team' AS akind,
      CASE
        WHEN r.item_kind = 'evaluationcriteria' THEN 1
        WHEN r.item_kind = 'corevalue' THEN 2
        ELSE 0
      END AS ikind,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'team'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root,
  x.akind,
  x.ikind
UNION ALL
SELECT
  x.root AS root,
  'selfratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(r.id AS CHAR(36)) AS id,
      r.rating AS rating
    FROM
      people s
      JOIN assessments a ON a.site_id = ?
      AND a.subject_id = s.id
      AND a.period_id = ?
      AND a.kind = 'self'
      JOIN assessment_ratings r ON r.site_id = ?
      AND r.assessment_id = a.id
  ) x
GROUP BY
  x.root
UNION ALL
SELECT
  x.root AS root,
  'roleratings' AS src,
  '' AS grp,
  '' AS grp2,
  COUNT(*) AS n,
  SUM(x.rating) AS a,
  0 AS b,
  0 AS c,
  0 AS d,
  0 AS e,
  0 AS s
FROM
  (
    SELECT
      s.root AS root,
      CAST(x.id AS CHAR(36)) AS id,
      x.rating AS rating
    FROM
      people s
      JOIN basic_roles br ON br.site_id = ?
      AND br.individual_id = s.id
      JOIN basic_role_dialogs x ON x.site_id = ?
      AND x.basic_role_id = br.id
      AND x.rating IS NOT NULL
      JOIN dialogs d ON d.site_id = ?
      AND d.id = x.dialog_id
      AND d.period_id = ?
      AND d.deleted = 0
  ) x
GROUP BY
  x.root;

-- dashboards.people (family)
-- src/modules/dashboards/dashboards.statements.ts
-- dashboards.people(1)
SELECT
  i.id,
  i.first_name,
  i.last_name,
  o.id AS department_id
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  AND o.row_type = 56
WHERE
  i.site_id = ?
  AND i.id IN (?);
-- dashboards.people(3)
SELECT
  i.id,
  i.first_name,
  i.last_name,
  o.id AS department_id
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  AND o.row_type = 56
WHERE
  i.site_id = ?
  AND i.id IN (?, ?, ?);

-- dashboards.records (family)
-- src/modules/dashboards/dashboards.statements.ts
-- dashboards.records('site', 'individual', 'a', { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, 'IndividualCommitmentsCompleted')
WITH RECURSIVE
  people (root, id) AS (
    SELECT
      i.id,
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.id IN (?)
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      i.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      individuals i
      JOIN organizations o ON o.site_id = i.site_id
      AND o.id = i.primary_organization_id
    WHERE
      i.site_id = ?
      AND i.id IN (?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      up
    WHERE
      depth = 0
      AND row_type = 56
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      p.owner_id,
      p.id
    FROM
      projects p
    WHERE
      p.site_id = ?
      AND p.owner_id IN (?)
      AND p.deleted = 0
  )
SELECT
  w.fig AS fig,
  w.rid AS rid,
  w.val AS val,
  w.total AS total
FROM
  (
    SELECT
      u.fig,
      u.rid,
      u.val,
      COUNT(*) OVER () AS total,
      ROW_NUMBER() OVER (
        ORDER BY
          u.rid
      ) AS rn
    FROM
      (
        SELECT
          'IndividualCommitmentsCompleted' AS fig,
          x.id AS rid,
          NULL AS val
        FROM
          (
            SELECT
              s.root AS root,
              CAST(c.id AS CHAR(36)) AS id,
              'individual' AS lvl,
              CASE
                WHEN c.completed = 1 THEN 1
                ELSE 0
              END AS done
            FROM
              people s
              JOIN commitments c ON c.site_id = ?
              AND c.type = 'individual'
              AND c.ancestor_id = s.id
              AND c.period_id = ?
            UNION ALL
            SELECT
              s.root AS root,
              CAST(c.id AS CHAR(36)) AS id,
              'department' AS lvl,
              CASE
                WHEN c.completed = 1 THEN 1
                ELSE 0
              END AS done
            FROM
              depts s
              JOIN commitments c ON c.site_id = ?
              AND c.type = 'department'
              AND c.ancestor_id = s.id
              AND c.period_id = ?
            UNION ALL
            SELECT
              s.root AS root,
              CAST(c.id AS CHAR(36)) AS id,
              'organization' AS lvl,
              CASE
                WHEN c.completed = 1 THEN 1
                ELSE 0
              END AS done
            FROM
              orgs s
              JOIN commitments c ON c.site_id = ?
              AND c.type = 'organization'
              AND c.ancestor_id = s.id
              AND c.period_id = ?
          ) x
        WHERE
          x.lvl = 'individual'
          AND x.done = 1
      ) u
  ) w
WHERE
  w.rn <= ?
ORDER BY
  w.rid;
-- dashboards.records('site', 'individual', 'a', { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, 'FollowUpsCompletedPercent')
WITH RECURSIVE
  people (root, id) AS (
    SELECT
      i.id,
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.id IN (?)
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      i.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      individuals i
      JOIN organizations o ON o.site_id = i.site_id
      AND o.id = i.primary_organization_id
    WHERE
      i.site_id = ?
      AND i.id IN (?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      up
    WHERE
      depth = 0
      AND row_type = 56
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      p.owner_id,
      p.id
    FROM
      projects p
    WHERE
      p.site_id = ?
      AND p.owner_id IN (?)
      AND p.deleted = 0
  )
SELECT
  w.fig AS fig,
  w.rid AS rid,
  w.val AS val,
  w.total AS total
FROM
  (
    SELECT
      u.fig,
      u.rid,
      u.val,
      COUNT(*) OVER () AS total,
      ROW_NUMBER() OVER (
        ORDER BY
          u.rid
      ) AS rn
    FROM
      (
        SELECT
          'FollowUpsCompletedPercent' AS fig,
          x.id AS rid,
          x.done AS val
        FROM
          (
            SELECT
              s.root AS root,
              CAST(t.id AS CHAR(36)) AS id,
              'individual' AS lvl,
              CASE
                WHEN t.completed = 1
                AND t.completed_date <= ? THEN 1
                ELSE 0
              END AS done,
              CASE
                WHEN (
                  t.completed = 1
                  AND t.completed_date <= ?
                )
                OR t.due_date <= ?
                OR (
                  t.due_date IS NULL
                  AND ? = 1
                ) THEN 1
                ELSE 0
              END AS rated
            FROM
              people s
              JOIN tasks t ON t.site_id = ?
              AND t.kind = 'individual'
              AND t.ancestor_id = s.id
              AND t.deleted = 0
              AND t.created >= ?
              AND t.created <= ?
            UNION ALL
            SELECT
              s.root AS root,
              CAST(t.id AS CHAR(36)) AS id,
              'department' AS lvl,
              CASE
                WHEN t.completed = 1
                AND t.completed_date <= ? THEN 1
                ELSE 0
              END AS done,
              CASE
                WHEN (
                  t.completed = 1
                  AND t.completed_date <= ?
                )
                OR t.due_date <= ?
                OR (
                  t.due_date IS NULL
                  AND ? = 1
                ) THEN 1
                ELSE 0
              END AS rated
            FROM
              depts s
              JOIN tasks t ON t.site_id = ?
              AND t.kind = 'department'
              AND t.ancestor_id = s.id
              AND t.deleted = 0
              AND t.created >= ?
              AND t.created <= ?
            UNION ALL
            SELECT
              s.root AS root,
              CAST(t.id AS CHAR(36)) AS id,
              'organization' AS lvl,
              CASE
                WHEN t.completed = 1
                AND t.completed_date <= ? THEN 1
                ELSE 0
              END AS done,
              CASE
                WHEN (
                  t.completed = 1
                  AND t.completed_date <= ?
                )
                OR t.due_date <= ?
                OR (
                  t.due_date IS NULL
                  AND ? = 1
                ) THEN 1
                ELSE 0
              END AS rated
            FROM
              orgs s
              JOIN tasks t ON t.site_id = ?
              AND t.kind = 'organization'
              AND t.ancestor_id = s.id
              AND t.deleted = 0
              AND t.created >= ?
              AND t.created <= ?
            UNION ALL
            SELECT
              s.root AS root,
              CAST(t.id AS CHAR(36)) AS id,
              'project' AS lvl,
              CASE
                WHEN t.completed = 1
                AND t.completed_date <= ? THEN 1
                ELSE 0
              END AS done,
              CASE
                WHEN (
                  t.completed = 1
                  AND t.completed_date <= ?
                )
                OR t.due_date <= ?
                OR (
                  t.due_date IS NULL
                  AND ? = 1
                ) THEN 1
                ELSE 0
              END AS rated
            FROM
              projs s
              JOIN tasks t ON t.site_id = ?
              AND t.kind = 'project'
              AND t.ancestor_id = s.id
              AND t.deleted = 0
              AND t.created >= ?
              AND t.created <= ?
          ) x
        WHERE
          x.lvl IN ('individual')
          AND x.rated = 1
      ) u
  ) w
WHERE
  w.rn <= ?
ORDER BY
  w.rid;
-- dashboards.records('site', 'department', 'a', { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, 'MetricsExceedsPercent')
WITH RECURSIVE
  scope (root, kind, id, rt) AS (
    SELECT
      o.id,
      1,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?)
    UNION
    SELECT
      s.root,
      1,
      o.id,
      o.row_type
    FROM
      scope s
      JOIN organizations o ON o.site_id = ?
      AND o.parent_id = s.id
      AND o.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      2,
      m.individual_id,
      0
    FROM
      scope s
      JOIN organization_members m ON m.site_id = ?
      AND m.organization_id = s.id
      JOIN individuals i ON i.site_id = m.site_id
      AND i.id = m.individual_id
      AND i.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.organization_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.owner_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 2
  ),
  people (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 2
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 56
  ),
  up (root, id, row_type, parent_id, depth) AS (
    SELECT
      o.id,
      o.id,
      o.row_type,
      o.parent_id,
      0
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?)
    UNION ALL
    SELECT
      up.root,
      o.id,
      o.row_type,
      o.parent_id,
      up.depth + 1
    FROM
      up
      JOIN organizations o ON o.site_id = ?
      AND o.id = up.parent_id
    WHERE
      up.depth < 64
  ),
  orgs (root, id) AS (
    SELECT
      u.root,
      u.id
    FROM
      up u
    WHERE
      u.row_type = 4
      AND u.depth = (
        SELECT
          MIN(u2.depth)
        FROM
          up u2
        WHERE
          u2.root = u.root
          AND u2.row_type = 4
      )
  ),
  projs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 5
  )
SELECT
  w.fig AS fig,
  w.rid AS rid,
  w.val AS val,
  w.total AS total
FROM
  (
    SELECT
      u.fig,
      u.rid,
      u.val,
      COUNT(*) OVER () AS total,
      ROW_NUMBER() OVER (
        ORDER BY
          u.rid
      ) AS rn
    FROM
      (
        SELECT
          'MetricsExceedsPercent' AS fig,
          x.id AS rid,
          x.num * 100.0 / x.den AS val
        FROM
          (
            SELECT
              s.root AS root,
              CAST(m.id AS CHAR(36)) AS id,
              CASE
                WHEN m.is_8020 = 1 THEN 1
                ELSE 0
              END AS is8020,
              CASE
                WHEN m.higher_is_better = 1 THEN v.actual
                ELSE m.target
              END AS num,
              CASE
                WHEN m.higher_is_better = 1 THEN m.target
                ELSE v.actual
              END AS den
            FROM
              people s
              JOIN metrics m ON m.site_id = ?
              AND m.kind = 'individual'
              AND m.ancestor_id = s.id
              AND m.deleted = 0
              JOIN metric_values v ON v.site_id = ?
              AND v.metric_id = m.id
              AND v.period_id = ?
            WHERE
              m.target > 0
              AND (
                m.higher_is_better = 1
                OR v.actual > 0
              )
            UNION ALL
            SELECT
              s.root AS root,
              CAST(m.id AS CHAR(36)) AS id,
              CASE
                WHEN m.is_8020 = 1 THEN 1
                ELSE 0
              END AS is8020,
              CASE
                WHEN m.higher_is_better = 1 THEN v.actual
                ELSE m.target
              END AS num,
              CASE
                WHEN m.higher_is_better = 1 THEN m.target
                ELSE v.actual
              END AS den
            FROM
              projs s
              JOIN metrics m ON m.site_id = ?
              AND m.kind = 'project'
              AND m.ancestor_id = s.id
              AND m.deleted = 0
              JOIN metric_values v ON v.site_id = ?
              AND v.metric_id = m.id
              AND v.period_id = ?
            WHERE
              m.target > 0
              AND (
                m.higher_is_better = 1
                OR v.actual > 0
              )
          ) x
      ) u
  ) w
WHERE
  w.rn <= ?
ORDER BY
  w.rid;
-- dashboards.records('site', 'organization', 'a', { periodId: 1, from: 2026-01-01T00:00:00.000Z, to: 2026-12-31T23:59:59.999Z, now: 2026-06-30T00:00:00.000Z, thresholds: [70, 90, 110] }, 'ProjectsOnTime')
WITH RECURSIVE
  scope (root, kind, id, rt) AS (
    SELECT
      o.id,
      1,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?)
    UNION
    SELECT
      s.root,
      1,
      o.id,
      o.row_type
    FROM
      scope s
      JOIN organizations o ON o.site_id = ?
      AND o.parent_id = s.id
      AND o.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      2,
      m.individual_id,
      0
    FROM
      scope s
      JOIN organization_members m ON m.site_id = ?
      AND m.organization_id = s.id
      JOIN individuals i ON i.site_id = m.site_id
      AND i.id = m.individual_id
      AND i.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.organization_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 1
    UNION
    SELECT
      s.root,
      5,
      p.id,
      0
    FROM
      scope s
      JOIN projects p ON p.site_id = ?
      AND p.owner_id = s.id
      AND p.deleted = 0
    WHERE
      s.kind = 2
  ),
  people (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 2
  ),
  depts (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 56
  ),
  orgs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 1
      AND rt = 4
  ),
  projs (root, id) AS (
    SELECT
      root,
      id
    FROM
      scope
    WHERE
      kind = 5
  )
SELECT
  w.fig AS fig,
  w.rid AS rid,
  w.val AS val,
  w.total AS total
FROM
  (
    SELECT
      u.fig,
      u.rid,
      u.val,
      COUNT(*) OVER () AS total,
      ROW_NUMBER() OVER (
        ORDER BY
          u.rid
      ) AS rn
    FROM
      (
        SELECT
          'ProjectsOnTime' AS fig,
          x.id AS rid,
          NULL AS val
        FROM
          (
            SELECT
              x.root AS root,
              x.id AS id,
              x.active AS active,
              x.done AS done,
              CASE
                WHEN (
                  x.active = 1
                  OR x.done = 1
                )
                AND x.ontime = 1 THEN 1
                ELSE 0
              END AS ontime
            FROM
              (
                SELECT
                  s.root AS root,
                  CAST(p.id AS CHAR(36)) AS id,
                  CASE
                    WHEN COALESCE(p.start_date, p.created) <= ?
                    AND (
                      p.completed_date IS NULL
                      OR p.completed_date >= ?
                    ) THEN 1
                    ELSE 0
                  END AS active,
                  CASE
                    WHEN p.completed_date >= ?
                    AND p.completed_date <= ? THEN 1
                    ELSE 0
                  END AS done,
                  CASE
                    WHEN p.due_date IS NULL
                    OR (
                      p.completed_date IS NOT NULL
                      AND p.completed_date <= p.due_date
                    )
                    OR (
                      p.completed_date IS NULL
                      AND p.due_date >= ?
                    ) THEN 1
                    ELSE 0
                  END AS ontime
                FROM
                  projs s
                  JOIN projects p ON p.site_id = ?
                  AND p.id = s.id
              ) x
          ) x
        WHERE
          x.ontime = 1
      ) u
  ) w
WHERE
  w.rn <= ?
ORDER BY
  w.rid;

-- grants.groups-of
-- src/authorization/grants.statements.ts
SELECT
  group_id AS id
FROM
  security_group_members
WHERE
  site_id = ?
  AND individual_id = ?;

-- grants.of-principal
-- src/authorization/grants.statements.ts
SELECT
  p.id,
  p.row_id,
  p.row_type,
  p.child_type,
  p.principal_id,
  p.principal_type,
  p.create_state,
  p.read_state,
  p.update_state,
  p.delete_state,
  p.delegate_state
FROM
  permissions p
WHERE
  p.site_id = ?
  AND p.principal_id = ?;

-- grants.of-user (family)
-- src/authorization/grants.statements.ts
-- grants.of-user(true)
SELECT
  p.id,
  p.row_id,
  p.row_type,
  p.child_type,
  p.principal_id,
  p.principal_type,
  p.create_state,
  p.read_state,
  p.update_state,
  p.delete_state,
  p.delegate_state
FROM
  permissions p
WHERE
  p.site_id = ?
  AND (
    p.principal_id = ?
    OR p.principal_id IN (
      SELECT
        g.group_id
      FROM
        security_group_members g
      WHERE
        g.site_id = ?
        AND g.individual_id = ?
    )
  );
-- grants.of-user(false)
SELECT
  p.id,
  p.row_id,
  p.row_type,
  p.child_type,
  p.principal_id,
  p.principal_type,
  p.create_state,
  p.read_state,
  p.update_state,
  p.delete_state,
  p.delegate_state
FROM
  permissions p
WHERE
  p.site_id = ?
  AND (p.principal_id = ?);

-- grants.projects-of-units (family)
-- src/authorization/grants.statements.ts
-- grants.projects-of-units(1)
SELECT
  id
FROM
  projects
WHERE
  site_id = ?
  AND organization_id IN (?);
-- grants.projects-of-units(3)
SELECT
  id
FROM
  projects
WHERE
  site_id = ?
  AND organization_id IN (?, ?, ?);

-- grants.row-type-of
-- src/authorization/grants.statements.ts
SELECT
  39 AS t
FROM
  individuals
WHERE
  site_id = ?
  AND id = ?
UNION ALL
SELECT
  row_type AS t
FROM
  organizations
WHERE
  site_id = ?
  AND id = ?
UNION ALL
SELECT
  15 AS t
FROM
  projects
WHERE
  site_id = ?
  AND id = ?
UNION ALL
SELECT
  9 AS t
FROM
  dialogs
WHERE
  site_id = ?
  AND id = ?
UNION ALL
SELECT
  7 AS t
FROM
  metrics
WHERE
  site_id = ?
  AND id = ?;

-- grants.unit-chain
-- src/authorization/grants.statements.ts
WITH RECURSIVE
  up (id, manager_id, parent_id, depth) AS (
    SELECT
      o.id,
      o.manager_id,
      o.parent_id,
      0
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id = ?
    UNION
    SELECT
      o.id,
      o.manager_id,
      o.parent_id,
      up.depth + 1
    FROM
      up
      CROSS JOIN organizations o
    WHERE
      o.site_id = ?
      AND o.id = up.parent_id
      AND up.depth < 256
  )
SELECT
  id,
  manager_id,
  depth
FROM
  up
ORDER BY
  depth;

-- grants.units-below (family)
-- src/authorization/grants.statements.ts
-- grants.units-below(1)
WITH RECURSIVE
  tree (root, id, row_type) AS (
    SELECT
      o.id,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?)
    UNION
    SELECT
      tree.root,
      o.id,
      o.row_type
    FROM
      tree
      CROSS JOIN organizations o
    WHERE
      o.site_id = ?
      AND o.parent_id = tree.id
  )
SELECT
  root,
  id,
  row_type
FROM
  tree;
-- grants.units-below(3)
WITH RECURSIVE
  tree (root, id, row_type) AS (
    SELECT
      o.id,
      o.id,
      o.row_type
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id IN (?, ?, ?)
    UNION
    SELECT
      tree.root,
      o.id,
      o.row_type
    FROM
      tree
      CROSS JOIN organizations o
    WHERE
      o.site_id = ?
      AND o.parent_id = tree.id
  )
SELECT
  root,
  id,
  row_type
FROM
  tree;

-- imports.active
-- src/modules/imports/imports.statements.ts
SELECT
  id
FROM
  import_jobs
WHERE
  site_id = ?
  AND active = 1;

-- imports.api-token-state
-- src/modules/imports/imports.statements.ts
SELECT
  revoked,
  expires
FROM
  api_tokens
WHERE
  site_id = ?
  AND id = ?;

-- imports.cancel
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  state = 'cancelled',
  active = NULL,
  finished = ?,
  lease_owner = NULL,
  lease_until = NULL,
  updated = ?
WHERE
  site_id = ?
  AND id = ?
  AND state IN ('receiving', 'queued', 'running');

-- imports.delete-all-waiting
-- src/modules/imports/imports.statements.ts
DELETE FROM import_waiting_rows
WHERE
  site_id = ?
  AND import_id = ?;

-- imports.delete-errors
-- src/modules/imports/imports.statements.ts
DELETE FROM import_errors
WHERE
  site_id = ?
  AND import_id = ?;

-- imports.delete-job
-- src/modules/imports/imports.statements.ts
DELETE FROM import_jobs
WHERE
  site_id = ?
  AND id = ?;

-- imports.delete-parts
-- src/modules/imports/imports.statements.ts
DELETE FROM import_file_parts
WHERE
  site_id = ?
  AND import_id = ?;

-- imports.delete-waiting (family)
-- src/modules/imports/imports.statements.ts
-- imports.delete-waiting(1)
DELETE FROM import_waiting_rows
WHERE
  site_id = ?
  AND import_id = ?
  AND id IN (?);
-- imports.delete-waiting(2)
DELETE FROM import_waiting_rows
WHERE
  site_id = ?
  AND import_id = ?
  AND id IN (?, ?);

-- imports.due (family)
-- src/modules/imports/imports.statements.ts
-- imports.due('mysql')
SELECT
  STRAIGHT_JOIN j.site_id,
  j.id,
  j.state
FROM
  change_seqs c
  JOIN import_jobs j ON j.site_id = c.site_id
  AND j.active = 1
WHERE
  j.lease_until IS NULL
  OR j.lease_until < ?
ORDER BY
  j.created
LIMIT
  ?;
-- imports.due('sqlite')
SELECT
  j.site_id,
  j.id,
  j.state
FROM
  change_seqs c
  CROSS JOIN import_jobs j ON j.site_id = c.site_id
  AND j.active = 1
WHERE
  j.lease_until IS NULL
  OR j.lease_until < ?
ORDER BY
  j.created
LIMIT
  ?;

-- imports.ended-jobs
-- src/modules/imports/imports.statements.ts
SELECT
  id
FROM
  import_jobs
WHERE
  site_id = ?
  AND finished < ?
  AND state IN ('succeeded', 'failed', 'cancelled')
ORDER BY
  finished
LIMIT
  ?;

-- imports.errors
-- src/modules/imports/imports.statements.ts
SELECT
  line,
  status,
  external_id,
  problem
FROM
  import_errors
WHERE
  site_id = ?
  AND import_id = ?
ORDER BY
  line,
  id
LIMIT
  ?;

-- imports.finish
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  state = ?,
  active = NULL,
  finished = ?,
  problem = ?,
  total_rows = COALESCE(?, total_rows),
  lease_owner = NULL,
  lease_until = NULL,
  updated = ?
WHERE
  site_id = ?
  AND id = ?;

-- imports.insert-errors (family)
-- src/modules/imports/imports.statements.ts
-- imports.insert-errors(1)
INSERT INTO
  import_errors (
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    import_id,
    line,
    status,
    external_id,
    problem
  )
VALUES
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?);
-- imports.insert-errors(2)
INSERT INTO
  import_errors (
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    import_id,
    line,
    status,
    external_id,
    problem
  )
VALUES
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?),
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?);

-- imports.insert-job
-- src/modules/imports/imports.statements.ts
INSERT INTO
  import_jobs (
    id,
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    kind,
    mode,
    format,
    state,
    active,
    file_bytes,
    parts,
    total_rows,
    next_row,
    rows_written,
    rows_failed,
    caller,
    lease_until
  )
VALUES
  (?, ?, ?, ?, ?, ?, 1, ?, ?, ?, 'receiving', 1, 0, 0, NULL, 0, 0, 0, ?, ?);

-- imports.insert-part
-- src/modules/imports/imports.statements.ts
INSERT INTO
  import_file_parts (
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    import_id,
    part_no,
    data
  )
VALUES
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?);

-- imports.insert-waiting (family)
-- src/modules/imports/imports.statements.ts
-- imports.insert-waiting(1)
INSERT INTO
  import_waiting_rows (
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    import_id,
    row_no,
    line,
    pass,
    external_id,
    problem,
    item
  )
VALUES
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?);
-- imports.insert-waiting(2)
INSERT INTO
  import_waiting_rows (
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    import_id,
    row_no,
    line,
    pass,
    external_id,
    problem,
    item
  )
VALUES
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?),
  (?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?);

-- imports.job
-- src/modules/imports/imports.statements.ts
SELECT
  id,
  site_id,
  kind,
  mode,
  format,
  state,
  file_bytes,
  parts,
  total_rows,
  next_row,
  rows_written,
  rows_failed,
  caller,
  created,
  started,
  finished,
  problem,
  lease_owner,
  rows_waiting,
  retry_pass,
  retry_written,
  retry_final,
  claims_idle
FROM
  import_jobs
WHERE
  site_id = ?
  AND id = ?;

-- imports.lease
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  lease_owner = ?,
  lease_until = ?,
  state = 'running',
  started = COALESCE(started, ?),
  claims_idle = claims_idle + 1
WHERE
  site_id = ?
  AND id = ?
  AND active = 1
  AND state IN ('queued', 'running')
  AND (
    lease_until IS NULL
    OR lease_until < ?
  );

-- imports.lock-job (family)
-- src/modules/imports/imports.statements.ts
-- imports.lock-job('mysql')
SELECT
  id,
  site_id,
  kind,
  mode,
  format,
  state,
  file_bytes,
  parts,
  total_rows,
  next_row,
  rows_written,
  rows_failed,
  caller,
  created,
  started,
  finished,
  problem,
  lease_owner,
  rows_waiting,
  retry_pass,
  retry_written,
  retry_final,
  claims_idle
FROM
  import_jobs
WHERE
  site_id = ?
  AND id = ? FOR
UPDATE;
-- imports.lock-job('sqlite')
SELECT
  id,
  site_id,
  kind,
  mode,
  format,
  state,
  file_bytes,
  parts,
  total_rows,
  next_row,
  rows_written,
  rows_failed,
  caller,
  created,
  started,
  finished,
  problem,
  lease_owner,
  rows_waiting,
  retry_pass,
  retry_written,
  retry_final,
  claims_idle
FROM
  import_jobs
WHERE
  site_id = ?
  AND id = ?;

-- imports.next-pass
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  retry_pass = ?,
  retry_written = 0,
  retry_final = ?,
  problem = COALESCE(?, problem),
  lease_until = ?,
  updated = ?
WHERE
  site_id = ?
  AND id = ?
  AND lease_owner = ?;

-- imports.parts
-- src/modules/imports/imports.statements.ts
SELECT
  part_no,
  data
FROM
  import_file_parts
WHERE
  site_id = ?
  AND import_id = ?
  AND part_no >= ?
ORDER BY
  part_no
LIMIT
  ?;

-- imports.progress
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  next_row = ?,
  rows_written = rows_written + ?,
  rows_failed = rows_failed + ?,
  rows_waiting = rows_waiting + ?,
  total_rows = COALESCE(?, total_rows),
  claims_idle = 0,
  lease_until = ?,
  updated = ?
WHERE
  site_id = ?
  AND id = ?
  AND lease_owner = ?;

-- imports.received
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  state = 'queued',
  file_bytes = ?,
  parts = ?,
  total_rows = ?,
  lease_until = NULL,
  updated = ?
WHERE
  site_id = ?
  AND id = ?
  AND state = 'receiving';

-- imports.receiving-lease
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  lease_until = ?
WHERE
  site_id = ?
  AND id = ?
  AND state = 'receiving';

-- imports.release
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  lease_owner = NULL,
  lease_until = NULL
WHERE
  site_id = ?
  AND id = ?
  AND lease_owner = ?;

-- imports.retention-child-ids (family)
-- src/modules/imports/imports.statements.ts
-- imports.retention-child-ids('import_errors', 2)
SELECT
  id
FROM
  import_errors
WHERE
  site_id = ?
  AND import_id IN (?, ?)
LIMIT
  ?;
-- imports.retention-child-ids('import_waiting_rows', 2)
SELECT
  id
FROM
  import_waiting_rows
WHERE
  site_id = ?
  AND import_id IN (?, ?)
LIMIT
  ?;
-- imports.retention-child-ids('import_file_parts', 2)
SELECT
  id
FROM
  import_file_parts
WHERE
  site_id = ?
  AND import_id IN (?, ?)
LIMIT
  ?;

-- imports.retention-prune-children (family)
-- src/modules/imports/imports.statements.ts
-- imports.retention-prune-children('import_errors', 2)
DELETE FROM import_errors
WHERE
  site_id = ?
  AND id IN (?, ?);
-- imports.retention-prune-children('import_waiting_rows', 2)
DELETE FROM import_waiting_rows
WHERE
  site_id = ?
  AND id IN (?, ?);
-- imports.retention-prune-children('import_file_parts', 2)
DELETE FROM import_file_parts
WHERE
  site_id = ?
  AND id IN (?, ?);

-- imports.retention-prune-jobs (family)
-- src/modules/imports/imports.statements.ts
-- imports.retention-prune-jobs(2)
DELETE FROM import_jobs
WHERE
  site_id = ?
  AND id IN (?, ?)
  AND finished < ?
  AND active IS NULL
  AND state IN ('succeeded', 'failed', 'cancelled');

-- imports.retention-sites
-- src/modules/imports/imports.statements.ts
SELECT
  site_id
FROM
  change_seqs;

-- imports.retry-progress
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  rows_written = rows_written + ?,
  rows_failed = rows_failed + ?,
  rows_waiting = rows_waiting - ?,
  retry_written = retry_written + ?,
  claims_idle = 0,
  lease_until = ?,
  updated = ?
WHERE
  site_id = ?
  AND id = ?
  AND lease_owner = ?;

-- imports.stale-receiving
-- src/modules/imports/imports.statements.ts
UPDATE import_jobs
SET
  state = 'failed',
  active = NULL,
  problem = 'The file was not received whole',
  finished = ?,
  lease_until = NULL
WHERE
  site_id = ?
  AND id = ?
  AND state = 'receiving'
  AND lease_until < ?;

-- imports.waiting
-- src/modules/imports/imports.statements.ts
SELECT
  id,
  row_no,
  line,
  external_id,
  problem,
  item
FROM
  import_waiting_rows
WHERE
  site_id = ?
  AND import_id = ?
  AND pass = ?
ORDER BY
  row_no DESC
LIMIT
  ?;

-- individuals.beyond-chains (family)
-- src/modules/individuals/individuals.statements.ts
-- individuals.beyond-chains(2)
WITH RECURSIVE
  up (start, id, depth) AS (
    SELECT
      x.id,
      x.id,
      1
    FROM
      individuals x
    WHERE
      x.site_id = ?
      AND x.id IN (?, ?)
    UNION ALL
    SELECT
      up.start,
      x.primary_reports_to,
      up.depth + 1
    FROM
      up
      CROSS JOIN individuals x
    WHERE
      x.site_id = ?
      AND x.id = up.id
      AND up.depth < 256
  )
SELECT DISTINCT
  start
FROM
  up
WHERE
  id = ?;

-- individuals.count (family)
-- src/modules/individuals/individuals.statements.ts
-- individuals.count(0, 0)
SELECT
  COUNT(*) AS n
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.deleted = 0;
-- individuals.count(2, 2)
SELECT
  COUNT(*) AS n
FROM
  individuals i
WHERE
  i.site_id = ?
  AND i.id NOT IN (?, ?);

-- individuals.page (family)
-- src/modules/individuals/individuals.statements.ts
-- individuals.page(false, 0, 'first', 0)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
WHERE
  i.site_id = ?
  AND i.deleted = 0
ORDER BY
  i.last_name,
  i.first_name,
  i.id
LIMIT
  ?
OFFSET
  ?;
-- individuals.page(false, 0, 'later', 0)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  (
    SELECT
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.deleted = 0
    ORDER BY
      i.last_name,
      i.first_name,
      i.id
    LIMIT
      ?
    OFFSET
      ?
  ) p
  JOIN individuals i ON i.id = p.id
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
ORDER BY
  i.last_name,
  i.first_name,
  i.id;
-- individuals.page(true, 1, 'first', 0)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last,
  m1.id AS m1,
  m2.id AS m2,
  m3.id AS m3,
  m4.id AS m4,
  m5.id AS m5,
  m6.id AS m6,
  m7.id AS m7,
  m8.id AS m8,
  m8.primary_reports_to AS beyond
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
  LEFT JOIN individuals m1 ON m1.site_id = i.site_id
  AND m1.id = i.primary_reports_to
  LEFT JOIN individuals m2 ON m2.site_id = i.site_id
  AND m2.id = m1.primary_reports_to
  LEFT JOIN individuals m3 ON m3.site_id = i.site_id
  AND m3.id = m2.primary_reports_to
  LEFT JOIN individuals m4 ON m4.site_id = i.site_id
  AND m4.id = m3.primary_reports_to
  LEFT JOIN individuals m5 ON m5.site_id = i.site_id
  AND m5.id = m4.primary_reports_to
  LEFT JOIN individuals m6 ON m6.site_id = i.site_id
  AND m6.id = m5.primary_reports_to
  LEFT JOIN individuals m7 ON m7.site_id = i.site_id
  AND m7.id = m6.primary_reports_to
  LEFT JOIN individuals m8 ON m8.site_id = i.site_id
  AND m8.id = m7.primary_reports_to
WHERE
  i.site_id = ?
  AND i.deleted = 1
ORDER BY
  i.last_name,
  i.first_name,
  i.id
LIMIT
  ?
OFFSET
  ?;
-- individuals.page(true, 2, 'later', 2)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last,
  m1.id AS m1,
  m2.id AS m2,
  m3.id AS m3,
  m4.id AS m4,
  m5.id AS m5,
  m6.id AS m6,
  m7.id AS m7,
  m8.id AS m8,
  m8.primary_reports_to AS beyond
FROM
  (
    SELECT
      i.id
    FROM
      individuals i
    WHERE
      i.site_id = ?
      AND i.id NOT IN (?, ?)
    ORDER BY
      i.last_name,
      i.first_name,
      i.id
    LIMIT
      ?
    OFFSET
      ?
  ) p
  JOIN individuals i ON i.id = p.id
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
  LEFT JOIN individuals m1 ON m1.site_id = i.site_id
  AND m1.id = i.primary_reports_to
  LEFT JOIN individuals m2 ON m2.site_id = i.site_id
  AND m2.id = m1.primary_reports_to
  LEFT JOIN individuals m3 ON m3.site_id = i.site_id
  AND m3.id = m2.primary_reports_to
  LEFT JOIN individuals m4 ON m4.site_id = i.site_id
  AND m4.id = m3.primary_reports_to
  LEFT JOIN individuals m5 ON m5.site_id = i.site_id
  AND m5.id = m4.primary_reports_to
  LEFT JOIN individuals m6 ON m6.site_id = i.site_id
  AND m6.id = m5.primary_reports_to
  LEFT JOIN individuals m7 ON m7.site_id = i.site_id
  AND m7.id = m6.primary_reports_to
  LEFT JOIN individuals m8 ON m8.site_id = i.site_id
  AND m8.id = m7.primary_reports_to
ORDER BY
  i.last_name,
  i.first_name,
  i.id;

-- individuals.queried-page (family)
-- src/modules/individuals/individuals.statements.ts
-- individuals.queried-page(false, { text: 'SELECT t.last_name AS k0, t.first_name AS k1, t.id AS k2 FROM individuals t WHERE t.site_id = ? AND t.deleted = ? AND t.last_name LIKE ? ESCAPE '!' ORDER BY t.last_name, t.first_name, t.id LIMIT ?', params: [], orderBy: 'p.k0, p.k1, p.k2', count: 3 }, '')
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last,
  p.k0 AS k0,
  p.k1 AS k1,
  p.k2 AS k2
FROM
  (
    SELECT
      t.last_name AS k0,
      t.first_name AS k1,
      t.id AS k2
    FROM
      individuals t
    WHERE
      t.site_id = ?
      AND t.deleted = ?
      AND t.last_name LIKE ? ESCAPE '!'
    ORDER BY
      t.last_name,
      t.first_name,
      t.id
    LIMIT
      ?
  ) p
  JOIN individuals i ON i.site_id = ?
  AND i.id = p.k2
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
ORDER BY
  p.k0,
  p.k1,
  p.k2;

-- individuals.read-as-admin
-- src/modules/individuals/individuals.statements.ts
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
WHERE
  i.site_id = ?
  AND i.id = ?;

-- individuals.read-as-member
-- src/modules/individuals/individuals.statements.ts
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last,
  m1.id AS m1,
  m2.id AS m2,
  m3.id AS m3,
  m4.id AS m4,
  m5.id AS m5,
  m6.id AS m6,
  m7.id AS m7,
  m8.id AS m8,
  m8.primary_reports_to AS beyond
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
  LEFT JOIN individuals m1 ON m1.site_id = i.site_id
  AND m1.id = i.primary_reports_to
  LEFT JOIN individuals m2 ON m2.site_id = i.site_id
  AND m2.id = m1.primary_reports_to
  LEFT JOIN individuals m3 ON m3.site_id = i.site_id
  AND m3.id = m2.primary_reports_to
  LEFT JOIN individuals m4 ON m4.site_id = i.site_id
  AND m4.id = m3.primary_reports_to
  LEFT JOIN individuals m5 ON m5.site_id = i.site_id
  AND m5.id = m4.primary_reports_to
  LEFT JOIN individuals m6 ON m6.site_id = i.site_id
  AND m6.id = m5.primary_reports_to
  LEFT JOIN individuals m7 ON m7.site_id = i.site_id
  AND m7.id = m6.primary_reports_to
  LEFT JOIN individuals m8 ON m8.site_id = i.site_id
  AND m8.id = m7.primary_reports_to
WHERE
  i.site_id = ?
  AND i.id = ?;

-- individuals.read-many (family)
-- src/modules/individuals/individuals.statements.ts
-- individuals.read-many(false, 2)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
WHERE
  i.site_id = ?
  AND i.id IN (?, ?);
-- individuals.read-many(true, 2)
SELECT
  i.id,
  i.site_id,
  i.user_id,
  i.is_admin,
  i.prefix,
  i.suffix,
  i.first_name,
  i.last_name,
  i.user_defined1,
  i.user_defined2,
  i.user_defined3,
  i.user_defined4,
  i.email,
  i.primary_organization_id,
  i.primary_title,
  i.primary_reports_to,
  i.hire_date,
  i.send_eval_survey,
  i.deleted,
  i.deleted_by_ref,
  i.created,
  i.created_by,
  i.updated,
  i.updated_by,
  i.version,
  i.external_id,
  o.name AS o_name,
  u.user_name AS u_user_name,
  u.email AS u_email,
  u.is_global_admin AS u_is_global_admin,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last,
  m1.id AS m1,
  m2.id AS m2,
  m3.id AS m3,
  m4.id AS m4,
  m5.id AS m5,
  m6.id AS m6,
  m7.id AS m7,
  m8.id AS m8,
  m8.primary_reports_to AS beyond
FROM
  individuals i
  LEFT JOIN organizations o ON o.site_id = i.site_id
  AND o.id = i.primary_organization_id
  LEFT JOIN users u ON u.id = i.user_id
  AND u.site_id = i.site_id
  LEFT JOIN comments c ON c.id = i.last_comment_id
  AND c.site_id = i.site_id
  AND c.ancestor_type = 'individuals'
  AND c.ancestor_id = i.id
  AND c.deleted = 0
  LEFT JOIN individuals m1 ON m1.site_id = i.site_id
  AND m1.id = i.primary_reports_to
  LEFT JOIN individuals m2 ON m2.site_id = i.site_id
  AND m2.id = m1.primary_reports_to
  LEFT JOIN individuals m3 ON m3.site_id = i.site_id
  AND m3.id = m2.primary_reports_to
  LEFT JOIN individuals m4 ON m4.site_id = i.site_id
  AND m4.id = m3.primary_reports_to
  LEFT JOIN individuals m5 ON m5.site_id = i.site_id
  AND m5.id = m4.primary_reports_to
  LEFT JOIN individuals m6 ON m6.site_id = i.site_id
  AND m6.id = m5.primary_reports_to
  LEFT JOIN individuals m7 ON m7.site_id = i.site_id
  AND m7.id = m6.primary_reports_to
  LEFT JOIN individuals m8 ON m8.site_id = i.site_id
  AND m8.id = m7.primary_reports_to
WHERE
  i.site_id = ?
  AND i.id IN (?, ?);

-- last-comment.lock-individuals (family)
-- src/database/queries/last-comment.ts
-- last-comment.lock-individuals(3)
SELECT
  id
FROM
  individuals
WHERE
  site_id = ?
  AND id IN (?, ?, ?)
ORDER BY
  id FOR
UPDATE;

-- last-comment.newest-of (family)
-- src/database/queries/last-comment.ts
-- last-comment.newest-of('mysql', 1)
SELECT
  x.id AS ancestorId,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  (
    SELECT
      x.id,
      (
        SELECT
          lc.id
        FROM
          comments lc FORCE INDEX (ix_comments_site_ancestor_last)
        WHERE
          lc.site_id = x.site_id
          AND lc.ancestor_type = 'individuals'
          AND lc.ancestor_id = x.id
          AND lc.deleted = 0
        ORDER BY
          lc.created DESC,
          lc.id DESC
        LIMIT
          1
      ) AS lc_id
    FROM
      individuals x
    WHERE
      x.site_id = ?
      AND x.id IN (?)
  ) x
  JOIN comments c ON c.id = x.lc_id;
-- last-comment.newest-of('sqlite', 3)
SELECT
  x.id AS ancestorId,
  c.body AS lc_body,
  c.created AS lc_created,
  c.author_id AS lc_author_id,
  c.author_first_name AS lc_first,
  c.author_last_name AS lc_last
FROM
  (
    SELECT
      x.id,
      (
        SELECT
          lc.id
        FROM
          comments lc
        WHERE
          lc.site_id = x.site_id
          AND lc.ancestor_type = 'individuals'
          AND lc.ancestor_id = x.id
          AND lc.deleted = 0
        ORDER BY
          lc.created DESC,
          lc.id DESC
        LIMIT
          1
      ) AS lc_id
    FROM
      individuals x
    WHERE
      x.site_id = ?
      AND x.id IN (?, ?, ?)
  ) x
  JOIN comments c ON c.id = x.lc_id;

-- last-comment.refresh (family)
-- src/database/queries/last-comment.ts
-- last-comment.refresh('mysql', 1)
UPDATE individuals
SET
  last_comment_id = (
    SELECT
      lc.id
    FROM
      comments lc FORCE INDEX (ix_comments_site_ancestor_last)
    WHERE
      lc.site_id = individuals.site_id
      AND lc.ancestor_type = 'individuals'
      AND lc.ancestor_id = individuals.id
      AND lc.deleted = 0
    ORDER BY
      lc.created DESC,
      lc.id DESC
    LIMIT
      1
  )
WHERE
  site_id = ?
  AND id IN (?);
-- last-comment.refresh('sqlite', 3)
UPDATE individuals
SET
  last_comment_id = (
    SELECT
      lc.id
    FROM
      comments lc
    WHERE
      lc.site_id = individuals.site_id
      AND lc.ancestor_type = 'individuals'
      AND lc.ancestor_id = individuals.id
      AND lc.deleted = 0
    ORDER BY
      lc.created DESC,
      lc.id DESC
    LIMIT
      1
  )
WHERE
  site_id = ?
  AND id IN (?, ?, ?);

-- lists.count (family)
-- src/database/list-query-sql.ts
-- lists.count({ table: 'individuals', where: ' AND t.deleted = ? AND (t.last_name LIKE ? ESCAPE '!')' }, [])
SELECT
  COUNT(*) AS n
FROM
  individuals t
WHERE
  t.site_id = ?
  AND t.deleted = ?
  AND (t.last_name LIKE ? ESCAPE '!');

-- lists.page-keys (family)
-- src/database/list-query-sql.ts
-- lists.page-keys({ table: 'individuals', where: ' AND t.deleted = ? AND (t.last_name LIKE ? ESCAPE '!')', order: [{ column: 't.last_name', desc: false, nullable: false }, { column: 't.first_name', desc: false, nullable: false }, { column: 't.id', desc: false, nullable: false }], sqlite: false }, [], true)
SELECT
  t.last_name AS k0,
  t.first_name AS k1,
  t.id AS k2
FROM
  individuals t
WHERE
  t.site_id = ?
  AND t.deleted = ?
  AND (t.last_name LIKE ? ESCAPE '!')
ORDER BY
  t.last_name,
  t.first_name,
  t.id
LIMIT
  ?
OFFSET
  ?;
-- lists.page-keys({ table: 'individuals', where: ' AND t.deleted = ? AND ((t.hire_date < ?) OR (t.hire_date = ? AND t.id < ?))', order: [{ column: 't.hire_date', desc: true, nullable: true }, { column: 't.id', desc: true, nullable: false }], sqlite: false }, [], false)
SELECT
  t.hire_date AS k0,
  t.id AS k1
FROM
  individuals t
WHERE
  t.site_id = ?
  AND t.deleted = ?
  AND (
    (t.hire_date < ?)
    OR (
      t.hire_date = ?
      AND t.id < ?
    )
  )
ORDER BY
  t.hire_date DESC,
  t.id DESC
LIMIT
  ?;
-- lists.page-keys({ table: 'individuals', where: ' AND t.deleted = ? AND ((t.last_name > ?) OR (t.last_name = ? AND t.first_name > ?) OR (t.last_name = ? AND t.first_name = ? AND t.id > ?))', order: [{ column: 't.last_name', desc: false, nullable: false }, { column: 't.first_name', desc: false, nullable: false }, { column: 't.id', desc: false, nullable: false }], sqlite: false, index: 'ix_individuals_site_name' }, [], false)
SELECT
  t.last_name AS k0,
  t.first_name AS k1,
  t.id AS k2
FROM
  individuals t
USE INDEX (ix_individuals_site_name)
WHERE
  t.site_id = ?
  AND t.deleted = ?
  AND (
    (t.last_name > ?)
    OR (
      t.last_name = ?
      AND t.first_name > ?
    )
    OR (
      t.last_name = ?
      AND t.first_name = ?
      AND t.id > ?
    )
  )
ORDER BY
  t.last_name,
  t.first_name,
  t.id
LIMIT
  ?;

-- names.of (family)
-- src/database/queries/names.ts
-- names.of(1)
SELECT
  id,
  first_name,
  last_name
FROM
  individuals
WHERE
  site_id = ?
  AND id IN (?);
-- names.of(3)
SELECT
  id,
  first_name,
  last_name
FROM
  individuals
WHERE
  site_id = ?
  AND id IN (?, ?, ?);

-- outbox.claimed (family)
-- src/modules/webhooks/outbox.statements.ts
-- outbox.claimed(2)
SELECT
  id,
  site_id,
  url,
  event_types,
  secret,
  previous_secret,
  previous_secret_expires,
  cursor_seq,
  attempts,
  failing_since
FROM
  webhooks
WHERE
  id IN (?, ?)
  AND lease_owner = ?;

-- outbox.delete-deliveries
-- src/modules/webhooks/outbox.statements.ts
DELETE FROM webhook_deliveries
WHERE
  site_id = ?
  AND webhook_id = ?;

-- outbox.due
-- src/modules/webhooks/outbox.statements.ts
SELECT
  w.id
FROM
  webhooks w
  JOIN change_seqs c ON c.site_id = w.site_id
WHERE
  w.active = 1
  AND c.seq > w.cursor_seq
  AND (
    w.next_attempt IS NULL
    OR w.next_attempt <= ?
  )
  AND (
    w.lease_until IS NULL
    OR w.lease_until < ?
  )
ORDER BY
  w.next_attempt
LIMIT
  ?;

-- outbox.free (family)
-- src/modules/webhooks/outbox.statements.ts
-- outbox.free('mysql', 2)
SELECT
  id
FROM
  webhooks
WHERE
  id IN (?, ?)
  AND active = ?
  AND (
    lease_until IS NULL
    OR lease_until < ?
  ) FOR
UPDATE SKIP LOCKED;
-- outbox.free('sqlite', 2)
SELECT
  id
FROM
  webhooks
WHERE
  id IN (?, ?)
  AND active = ?
  AND (
    lease_until IS NULL
    OR lease_until < ?
  );

-- outbox.insert-deliveries (family)
-- src/modules/webhooks/outbox.statements.ts
-- outbox.insert-deliveries(1)
INSERT INTO
  webhook_deliveries (
    id,
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    webhook_id,
    event_id,
    event_type,
    seq,
    attempt,
    status,
    response_code,
    duration_ms,
    error,
    payload
  )
VALUES
  (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);
-- outbox.insert-deliveries(3)
INSERT INTO
  webhook_deliveries (
    id,
    site_id,
    created,
    created_by,
    updated,
    updated_by,
    version,
    webhook_id,
    event_id,
    event_type,
    seq,
    attempt,
    status,
    response_code,
    duration_ms,
    error,
    payload
  )
VALUES
  (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),
  (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?),
  (?, ?, ?, NULL, ?, NULL, 1, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?);

-- outbox.lease (family)
-- src/modules/webhooks/outbox.statements.ts
-- outbox.lease(2)
UPDATE webhooks
SET
  lease_owner = ?,
  lease_until = ?
WHERE
  id IN (?, ?)
  AND (
    lease_until IS NULL
    OR lease_until < ?
  );

-- outbox.old-deliveries
-- src/modules/webhooks/outbox.statements.ts
SELECT
  id
FROM
  webhook_deliveries
WHERE
  site_id = ?
  AND webhook_id = ?
  AND created < ?
ORDER BY
  created
LIMIT
  ?;

-- outbox.prune-deliveries (family)
-- src/modules/webhooks/outbox.statements.ts
-- outbox.prune-deliveries(3)
DELETE FROM webhook_deliveries
WHERE
  site_id = ?
  AND id IN (?, ?, ?);

-- outbox.release
-- src/modules/webhooks/outbox.statements.ts
UPDATE webhooks
SET
  lease_owner = NULL,
  lease_until = NULL
WHERE
  id = ?
  AND lease_owner = ?;

-- outbox.settle-done
-- src/modules/webhooks/outbox.statements.ts
UPDATE webhooks
SET
  cursor_seq = ?,
  attempts = 0,
  failing_since = NULL,
  next_attempt = NULL,
  lease_until = ?
WHERE
  id = ?
  AND lease_owner = ?;

-- outbox.settle-failed
-- src/modules/webhooks/outbox.statements.ts
UPDATE webhooks
SET
  cursor_seq = ?,
  attempts = ?,
  failing_since = ?,
  next_attempt = ?,
  lease_owner = NULL,
  lease_until = NULL
WHERE
  id = ?
  AND lease_owner = ?;

-- outbox.webhooks
-- src/modules/webhooks/outbox.statements.ts
SELECT
  site_id,
  id
FROM
  webhooks;

-- server.wsrep-on
-- src/database/transactions.ts
SHOW VARIABLES LIKE 'wsrep_on';

-- sites.lock
-- src/database/tenant-db.ts
UPDATE sites
SET
  lock_seq = lock_seq + 1
WHERE
  id = ?;

-- trees.in-reporting-chain
-- src/database/queries/trees.ts
WITH RECURSIVE
  up (id, depth) AS (
    SELECT
      primary_reports_to,
      1
    FROM
      individuals
    WHERE
      site_id = ?
      AND id = ?
    UNION
    SELECT
      i.primary_reports_to,
      up.depth + 1
    FROM
      up
      CROSS JOIN individuals i
    WHERE
      i.site_id = ?
      AND i.id = up.id
      AND up.depth < 256
  )
SELECT
  id
FROM
  up
WHERE
  id = ?;

-- trees.live-members (family)
-- src/database/queries/trees.ts
-- trees.live-members(1)
SELECT DISTINCT
  i.id AS id
FROM
  organization_members m
  JOIN individuals i ON i.id = m.individual_id
  AND i.site_id = m.site_id
WHERE
  m.site_id = ?
  AND m.organization_id IN (?)
  AND i.deleted = 0;
-- trees.live-members(3)
SELECT DISTINCT
  i.id AS id
FROM
  organization_members m
  JOIN individuals i ON i.id = m.individual_id
  AND i.site_id = m.site_id
WHERE
  m.site_id = ?
  AND m.organization_id IN (?, ?, ?)
  AND i.deleted = 0;

-- trees.nearest-ancestor-of-type
-- src/database/queries/trees.ts
WITH RECURSIVE
  up (id, parent_id, row_type, depth) AS (
    SELECT
      id,
      parent_id,
      row_type,
      0
    FROM
      organizations
    WHERE
      site_id = ?
      AND id = ?
    UNION
    SELECT
      o.id,
      o.parent_id,
      o.row_type,
      up.depth + 1
    FROM
      organizations o
      JOIN up ON o.id = up.parent_id
    WHERE
      o.site_id = ?
      AND up.depth < 256
  )
SELECT
  id
FROM
  up
WHERE
  row_type = ?
ORDER BY
  depth
LIMIT
  1;

-- trees.organization-ancestors
-- src/database/queries/trees.ts
WITH RECURSIVE
  up (id) AS (
    SELECT
      o.parent_id
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.id = ?
    UNION
    SELECT
      o.parent_id
    FROM
      organizations o
      JOIN up ON o.id = up.id
    WHERE
      o.site_id = ?
  )
SELECT
  id
FROM
  up
WHERE
  id IS NOT NULL;

-- trees.organization-descendants (family)
-- src/database/queries/trees.ts
-- trees.organization-descendants('live')
WITH RECURSIVE
  sub (id) AS (
    SELECT
      o.id
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.parent_id = ?
      AND o.deleted = 0
    UNION
    SELECT
      o.id
    FROM
      organizations o
      JOIN sub ON o.parent_id = sub.id
    WHERE
      o.site_id = ?
      AND o.deleted = 0
  )
SELECT
  id
FROM
  sub;
-- trees.organization-descendants('byRef')
WITH RECURSIVE
  sub (id) AS (
    SELECT
      o.id
    FROM
      organizations o
    WHERE
      o.site_id = ?
      AND o.parent_id = ?
      AND o.deleted = 1
      AND o.deleted_by_ref = 1
    UNION
    SELECT
      o.id
    FROM
      organizations o
      JOIN sub ON o.parent_id = sub.id
    WHERE
      o.site_id = ?
      AND o.deleted = 1
      AND o.deleted_by_ref = 1
  )
SELECT
  id
FROM
  sub;

-- trees.organization-subtree
-- src/database/queries/trees.ts
WITH RECURSIVE
  tree (id, row_type) AS (
    SELECT
      id,
      row_type
    FROM
      organizations
    WHERE
      site_id = ?
      AND id = ?
    UNION
    SELECT
      o.id,
      o.row_type
    FROM
      organizations o
      JOIN tree ON o.parent_id = tree.id
    WHERE
      o.site_id = ?
      AND o.deleted = 0
  )
SELECT
  id,
  row_type
FROM
  tree;

-- trees.subordinates
-- src/database/queries/trees.ts
WITH RECURSIVE
  sub (id) AS (
    SELECT
      id
    FROM
      individuals
    WHERE
      site_id = ?
      AND primary_reports_to = ?
    UNION
    SELECT
      i.id
    FROM
      sub
      CROSS JOIN individuals i
    WHERE
      i.site_id = ?
      AND i.primary_reports_to = sub.id
  )
SELECT
  id
FROM
  sub;

-- tx.release-savepoint (family)
-- src/database/transactions.ts
-- tx.release-savepoint(1)
RELEASE SAVEPOINT pms_sp1;

-- tx.rollback-to-savepoint (family)
-- src/database/transactions.ts
-- tx.rollback-to-savepoint(1)
ROLLBACK TO
SAVEPOINT pms_sp1;

-- tx.savepoint (family)
-- src/database/transactions.ts
-- tx.savepoint(1)
SAVEPOINT pms_sp1;
