import type { FieldChange } from '../../database/journal.js';

/**
 * What a change of the trail means for the dashboard summaries (docs/dashboards.md, "Summaries"):
 * which dashboard rows — individuals, departments, organizations — must be computed again. Pure
 * functions, in three steps the summary builder runs with the database in between:
 *
 * 1. `classify` a change: ignored (no counted field changed), the whole site (a unit moved, a
 *    period's dates, the thresholds), or the record's states before and after, to be mapped;
 * 2. `targetsOfState`: what one state of a record points at — a person, a unit, a unit's own level,
 *    a project, or a record to look up first (a metric, an assessment, a basic role);
 * 3. `expand` the resolved targets over the site's tree into the rows to compute again: a person's
 *    row and every unit above the units they belong to; a department's own records reach its
 *    people whose primary unit it is; an organization's own records reach every unit below it and
 *    the people whose primary unit lies below it (their organization level is the nearest one).
 *
 * Before and After are both mapped, so a goal moved from A to B dirties both.
 */

/** A change as the builder reads it from the trail. */
export interface TrailChange {
  kind: string;
  rowId: string;
  action: string;
  gone: boolean;
  fields: FieldChange[];
}

/** A record's fields by wire name (the trail's Before/After values, or its current row). */
export type RecordState = Record<string, unknown>;

export type Target =
  | { t: 'person'; id: string }
  /**
   * The person's own row alone: a person created since the summaries were built (see
   * `targetsOfChange`). No unit counts anything of theirs yet; each record of theirs reaches the
   * units through its own change.
   */
  | { t: 'own'; id: string }
  /** The unit and every unit above it (the scopes that hold it). */
  | { t: 'unit'; id: string }
  /** The unit's own organization- or department-level records (commitments, dialogs, follow-ups). */
  | { t: 'level'; level: 'organization' | 'department'; id: string }
  | { t: 'project'; id: string }
  | { t: 'metric'; id: string }
  | { t: 'assessment'; id: string }
  | { t: 'basic-role'; id: string }
  /** The people whose basic roles are rated in a dialog (their IndividualBasicRolePercent). */
  | { t: 'dialog-roles'; id: string };

/**
 * The fields whose change can move a figure, per kind of record. An update touching none of them
 * (a name, a description) changes no dashboard: names are read from the rows at answer time.
 */
export const COUNTED_FIELDS: Readonly<Record<string, readonly string[]>> = {
  individual: ['Deleted', 'PrimaryOrganizationID'],
  'organization-member': ['IndividualID', 'OrganizationID'],
  project: ['OwnerID', 'OrganizationID', 'StartDate', 'DueDate', 'CompletedDate', 'Deleted'],
  commitment: ['Type', 'AncestorID', 'PeriodID', 'Completed'],
  dialog: ['Kind', 'AncestorID', 'PeriodID', 'OccurredDate', 'Deleted'],
  task: ['Kind', 'AncestorID', 'DueDate', 'Completed', 'CompletedDate', 'Deleted'],
  metric: ['Kind', 'AncestorID', 'Is8020', 'Target', 'HigherIsBetter', 'Deleted'],
  'metric-value': ['MetricID', 'PeriodID', 'Actual'],
  goal: ['IndividualID', 'PeriodID', 'Completed'],
  assessment: ['Kind', 'SubjectID', 'PeriodID'],
  'assessment-rating': ['AssessmentID', 'ItemKind', 'Rating'],
  'basic-role': ['IndividualID'],
  'basic-role-dialog': ['BasicRoleID', 'DialogID', 'Rating'],
  'project-due-date-change': ['ProjectID'],
};

/** Kinds whose changes reach the whole site, and the fields that make them do so (any field when empty). */
const SITE_WIDE: Readonly<Record<string, readonly string[]>> = {
  // A unit created, deleted, moved or retyped changes the scope of the units above and below it
  // and the organization level of the people below it.
  organization: ['ParentID', 'Deleted', 'RowType'],
  period: ['StartDate', 'EndDate'],
  'dashboard-settings': ['Threshold1', 'Threshold2', 'Threshold3'],
};

/** Every kind of change the builder reads. */
export const SUMMARY_KINDS: readonly string[] = [...Object.keys(COUNTED_FIELDS), ...Object.keys(SITE_WIDE)];

export type Classified =
  | { as: 'ignore' }
  | { as: 'site' }
  /** `before`/`after`: the trail's values; `current`: the row must be read too (an update carries only what changed). */
  | { as: 'states'; kind: string; rowId: string; before: RecordState | null; after: RecordState | null; current: boolean };

export function classify(c: TrailChange): Classified {
  const siteWide = SITE_WIDE[c.kind];
  const counted = COUNTED_FIELDS[c.kind];
  const created = c.action === 'create';
  const wholeRow = created || c.gone;
  if (siteWide) {
    if (wholeRow || c.fields.some((f) => siteWide.includes(f.Field))) return { as: 'site' };
    return { as: 'ignore' };
  }
  if (!counted) return { as: 'ignore' };
  if (!wholeRow && !c.fields.some((f) => counted.includes(f.Field))) return { as: 'ignore' };
  const before: RecordState | null = created ? null : {};
  const after: RecordState | null = c.gone ? null : {};
  for (const f of c.fields) {
    if (before) before[f.Field] = f.Before;
    if (after) after[f.Field] = f.After;
  }
  return { as: 'states', kind: c.kind, rowId: c.rowId, before, after, current: !wholeRow };
}

const str = (v: unknown): string | null => (typeof v === 'string' && v !== '' ? v : null);

/** A record of a level (Kind/Type and AncestorID): whose rows it counts in. */
function levelled(kind: unknown, ancestor: unknown): Target[] {
  const id = str(ancestor);
  if (!id) return [];
  switch (kind) {
    case 'individual':
      return [{ t: 'person', id }];
    case 'project':
      return [{ t: 'project', id }];
    case 'organization':
    case 'department':
      return [{ t: 'level', level: kind, id }];
    default:
      return [];
  }
}

/** What one state of a record of `kind` (id `rowId`) points at. */
export function targetsOfState(kind: string, rowId: string, s: RecordState): Target[] {
  const one = (t: Target['t'], v: unknown): Target[] => {
    const id = str(v);
    return id ? [{ t, id } as Target] : [];
  };
  switch (kind) {
    case 'individual':
      return [{ t: 'person', id: rowId }];
    case 'organization-member':
      return [...one('person', s.IndividualID), ...one('unit', s.OrganizationID)];
    case 'project':
      return [...one('person', s.OwnerID), ...one('unit', s.OrganizationID)];
    case 'commitment':
      return levelled(s.Type, s.AncestorID);
    case 'dialog':
      return [...levelled(s.Kind, s.AncestorID), { t: 'dialog-roles', id: rowId }];
    case 'task':
    case 'metric':
      return levelled(s.Kind, s.AncestorID);
    case 'metric-value':
      return one('metric', s.MetricID);
    case 'goal':
    case 'basic-role':
      return one('person', s.IndividualID);
    case 'assessment':
      return one('person', s.SubjectID);
    case 'assessment-rating':
      return one('assessment', s.AssessmentID);
    case 'basic-role-dialog':
      return [...one('basic-role', s.BasicRoleID), ...one('dialog-roles', s.DialogID)];
    case 'project-due-date-change':
      return one('project', s.ProjectID);
    default:
      return [];
  }
}

/**
 * What one state of a record reaches when `born` holds the people created among the changes being
 * built (their create is in the same build): as `targetsOfState`, except that a change of such a
 * person's own record or of their memberships reaches their own row alone. A unit's figures count
 * records (goals, dialogs, ratings…), never people: a person created since the last build had
 * none before it, and every record of theirs made since is a change of this build that reaches
 * the units they belong to now. So a feed of new people recomputes no unit over its scope (the
 * organization of every person, after each chunk of a bulk load, before 2026-11-29).
 */
export function targetsOfChange(kind: string, rowId: string, s: RecordState, born: ReadonlySet<string>): Target[] {
  const targets = targetsOfState(kind, rowId, s);
  if (born.size && (kind === 'individual' || kind === 'organization-member')) {
    const person = targets.find((t) => t.t === 'person');
    if (person && born.has(person.id)) return [{ t: 'own', id: person.id }];
  }
  return targets;
}

/** The people created among the changes being built (a create of an individual: no state before). */
export function bornAmong(states: readonly { kind: string; rowId: string; before: RecordState | null }[]): Set<string> {
  const born = new Set<string>();
  for (const s of states) if (s.kind === 'individual' && s.before === null) born.add(s.rowId);
  return born;
}

/**
 * The primary unit each of the `born` people was left with by the changes (their last state that
 * names one; null: none), for `alikeGroups`. A person whose states never name it is left out.
 */
export function primariesOf(
  states: readonly { kind: string; rowId: string; after: RecordState | null }[],
  born: ReadonlySet<string>,
): Map<string, string | null> {
  const out = new Map<string, string | null>();
  for (const s of states)
    if (s.kind === 'individual' && born.has(s.rowId) && s.after && 'PrimaryOrganizationID' in s.after) {
      const unit = s.after.PrimaryOrganizationID;
      out.set(s.rowId, typeof unit === 'string' && unit !== '' ? unit : null);
    }
  return out;
}

/** A site's units and who is where, as far as `expand` needs them. */
export interface SiteTree {
  /** Every unit of the site (deleted ones too): its parent. */
  parentOf: ReadonlyMap<string, string | null>;
  /** The units each person of the targets belongs to (any membership). */
  membershipsOf: ReadonlyMap<string, readonly string[]>;
  /** The live people whose primary unit is the key. */
  primaryMembersOf: ReadonlyMap<string, readonly string[]>;
}

/** The dashboard rows to compute again. */
export interface DirtyRows {
  individuals: Set<string>;
  units: Set<string>;
  /**
   * The individuals reached through their own row alone (`own`: people created in the build, no
   * record of theirs among its changes): each one's row is that of anyone else with the same
   * primary unit (see `alikeGroups`).
   */
  alone: Set<string>;
}

/**
 * The people of `alone` whose primary unit the build knows (`primaryOf`), grouped by it: a person
 * with no record of their own counts only their primary unit's department-level records and the
 * nearest organization's, so everyone of a group has the same row, and the builder computes one
 * of them and stores its sums for all (a chunk of a bulk load of one department: one row computed
 * instead of 250). Groups of one are left out.
 */
export function alikeGroups(alone: ReadonlySet<string>, primaryOf: ReadonlyMap<string, string | null>): string[][] {
  const byUnit = new Map<string, string[]>();
  for (const id of alone) {
    if (!primaryOf.has(id)) continue;
    const unit = primaryOf.get(id) ?? '';
    const group = byUnit.get(unit);
    if (group) group.push(id);
    else byUnit.set(unit, [id]);
  }
  return [...byUnit.values()].filter((g) => g.length > 1);
}

/** The units a person, project or unit target needs to know about before `expand` (memberships, primaries). */
export function childrenOf(tree: Pick<SiteTree, 'parentOf'>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const [id, parent] of tree.parentOf) {
    if (parent === null) continue;
    const list = out.get(parent);
    if (list) list.push(id);
    else out.set(parent, [id]);
  }
  return out;
}

/** The unit and its descendants (depth-first; a cycle cannot loop). */
export function subtreeOf(children: ReadonlyMap<string, readonly string[]>, root: string): string[] {
  const out: string[] = [];
  const seen = new Set<string>();
  const stack = [root];
  while (stack.length) {
    const id = stack.pop()!;
    if (seen.has(id)) continue;
    seen.add(id);
    out.push(id);
    for (const c of children.get(id) ?? []) stack.push(c);
  }
  return out;
}

/**
 * The rows the resolved targets (persons, units and unit levels only) reach over the tree. Rows
 * of records that no longer exist are included as they were: the builder deletes the summaries
 * of rows that are not live.
 */
export function expand(targets: readonly Target[], tree: SiteTree): DirtyRows {
  const out: DirtyRows = { individuals: new Set(), units: new Set(), alone: new Set() };
  // Individuals reached otherwise than through their own row alone.
  const reached = new Set<string>();
  const up = (unit: string) => {
    let id: string | null | undefined = unit;
    for (let depth = 0; id && depth < 64 && !out.units.has(id); depth++) {
      out.units.add(id);
      id = tree.parentOf.get(id);
    }
    // A unit met on the way up was added with all its ancestors before.
  };
  let children: Map<string, string[]> | null = null;
  for (const t of targets) {
    switch (t.t) {
      case 'person':
        out.individuals.add(t.id);
        reached.add(t.id);
        for (const u of tree.membershipsOf.get(t.id) ?? []) up(u);
        break;
      case 'own':
        out.individuals.add(t.id);
        out.alone.add(t.id);
        break;
      case 'unit':
        up(t.id);
        break;
      case 'level': {
        up(t.id);
        const below = t.level === 'organization' ? subtreeOf((children ??= childrenOf(tree)), t.id) : [t.id];
        for (const u of below) {
          if (t.level === 'organization') out.units.add(u);
          for (const p of tree.primaryMembersOf.get(u) ?? []) {
            out.individuals.add(p);
            reached.add(p);
          }
        }
        break;
      }
      default:
        throw new Error(`target ${t.t} must be resolved before expand`);
    }
  }
  for (const id of reached) out.alone.delete(id);
  return out;
}
