import type { ListItemKind } from '../../database/entities/list-item.entity.js';

/** What differs between the four ListItem kinds: names for messages and docs, and the ancestor. */
export interface ListItemKindInfo {
  kind: ListItemKind;
  /** Resource name in messages, e.g. "Accountability". */
  label: string;
  /** Plural words for documentation, e.g. "accountabilities". */
  plural: string;
  /** What AncestorID names. */
  ancestor: 'individual' | 'project';
  /** The kind's collection: `/v4/{path}/{id}`. */
  path: string;
}

export const ACCOUNTABILITY: ListItemKindInfo = {
  kind: 'accountability',
  label: 'Accountability',
  plural: 'accountabilities',
  ancestor: 'individual',
  path: 'accountabilities',
};
export const EVALUATION_CRITERION: ListItemKindInfo = {
  kind: 'evaluationcriteria',
  label: 'Evaluation criterion',
  plural: 'evaluation criteria',
  ancestor: 'individual',
  path: 'evaluationcriteria',
};
export const SUPERVISORY_SCOPE: ListItemKindInfo = {
  kind: 'supervisoryscope',
  label: 'Supervisory scope',
  plural: 'supervisory scopes',
  ancestor: 'individual',
  path: 'supervisoryscopes',
};
export const PROJECT_SCOPE: ListItemKindInfo = {
  kind: 'projectscope',
  label: 'Project scope',
  plural: 'project scopes',
  ancestor: 'project',
  path: 'projectscopes',
};

/** The four kinds. */
export const LIST_ITEM_KINDS: readonly ListItemKindInfo[] = [ACCOUNTABILITY, EVALUATION_CRITERION, SUPERVISORY_SCOPE, PROJECT_SCOPE];

/** The kinds whose AncestorID is an individual (the ones an individual's delete takes down). */
export const INDIVIDUAL_KINDS: readonly ListItemKind[] = [ACCOUNTABILITY.kind, EVALUATION_CRITERION.kind, SUPERVISORY_SCOPE.kind];
