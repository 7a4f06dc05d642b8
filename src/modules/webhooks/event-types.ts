import type { FieldChange } from '../../database/journal.js';

/**
 * Event names (docs/events.md, "Event types"). Every change of a record is an event named
 * `{kind}.{created|updated|deleted|undeleted}` (kinds as the audit trail names them:
 * `individual`, `dialog`, `organization-member`, …). Some changes carry a name of their own,
 * derived by this table from the kind and the field that changed; the event then goes by that
 * name, and an endpoint subscribed to the plain name (or `{kind}.*`, or `*`) receives it too.
 */
interface NamedChange {
  kind: string;
  name: string;
  /** When it happens, for docs/events.md and the OpenAPI document's `webhooks`. */
  doc: string;
  /** Matches the change; absent: every change of the kind. */
  when?: (action: string, fields: readonly FieldChange[]) => boolean;
}

const changed = (field: string, test: (before: unknown, after: unknown) => boolean) => (action: string, fields: readonly FieldChange[]) =>
  action === 'update' && fields.some((f) => f.Field === field && test(f.Before ?? null, f.After ?? null));
const anyOf =
  (...names: string[]) =>
  (action: string, fields: readonly FieldChange[]) =>
    action === 'update' && fields.some((f) => names.includes(f.Field));

export const NAMED_CHANGES: readonly NamedChange[] = [
  { kind: 'dialog', name: 'dialog.held', doc: 'A dialog’s OccurredDate is set.', when: changed('OccurredDate', (b, a) => b === null && a !== null) },
  { kind: 'task', name: 'task.completed', doc: 'A task’s Completed becomes true.', when: changed('Completed', (b, a) => b !== true && a === true) },
  { kind: 'task', name: 'task.reopened', doc: 'A task’s Completed becomes false again.', when: changed('Completed', (b, a) => b === true && a !== true) },
  { kind: 'period', name: 'period.closed', doc: 'A period is closed (its figures archived).', when: changed('Closed', (b, a) => b !== true && a === true) },
  { kind: 'period', name: 'period.reopened', doc: 'A closed period is opened again.', when: changed('Closed', (b, a) => b === true && a !== true) },
  {
    kind: 'individual',
    name: 'individual.moved',
    doc: 'An individual’s PrimaryReportsTo or PrimaryOrganizationID changes.',
    when: anyOf('PrimaryReportsTo', 'PrimaryOrganizationID'),
  },
  { kind: 'organization', name: 'organization.moved', doc: 'An organization’s or department’s ParentID changes.', when: anyOf('ParentID') },
  { kind: 'permission', name: 'permission.changed', doc: 'A Permission record is created, changed or deleted.' },
  { kind: 'security-group-member', name: 'membership.changed', doc: 'A department or security-group membership is created, changed or deleted.' },
  { kind: 'organization-member', name: 'membership.changed', doc: 'A department or security-group membership is created, changed or deleted.' },
  { kind: 'dashboard-settings', name: 'settings.changed', doc: 'The site’s dashboard settings change.' },
];

const PAST: Record<string, string> = { create: 'created', update: 'updated', delete: 'deleted', undelete: 'undeleted' };

/** The plain name of a change: `individual.updated`. */
export function plainType(kind: string, action: string): string {
  return `${kind}.${PAST[action] ?? action}`;
}

/** The name an event goes by: its own name where the table gives one, else the plain one. */
export function eventType(kind: string, action: string, fields: readonly FieldChange[]): string {
  const named = NAMED_CHANGES.find((n) => n.kind === kind && (!n.when || n.when(action, fields)));
  return named ? named.name : plainType(kind, action);
}

/** The subscription list as stored: space-separated names. */
export function parseTypes(list: string): string[] {
  return list
    .split(/[\s,]+/)
    .map((s) => s.trim())
    .filter(Boolean);
}

/** Whether an endpoint subscribed to `subscribed` receives an event of `type` (plain name `plain`). */
export function subscribes(subscribed: readonly string[], type: string, plain: string): boolean {
  const kind = plain.slice(0, plain.lastIndexOf('.'));
  return subscribed.some((s) => s === '*' || s === type || s === plain || s === `${kind}.*`);
}

/** A subscription name as accepted: `*`, `{kind}.*`, or `{kind}.{event}` (lower-case, digits, dashes). */
export const TYPE_PATTERN = /^(\*|[a-z][a-z0-9-]*\.(\*|[a-z][a-z0-9-]*))$/;

/**
 * What the OpenAPI document says `EventTypes` is: one or more types (TYPE_PATTERN) separated by
 * blanks or commas, as parseTypes reads them; the service refuses the same texts the pattern does.
 */
export const EVENT_TYPES_PATTERN = ((t: string) => `^[\\s,]*${t}(?:[\\s,]+${t})*[\\s,]*$`)(`(?:${TYPE_PATTERN.source.slice(1, -1)})`);
