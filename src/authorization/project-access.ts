import type { RequestContext } from '../common/context/request-context.js';
import { Row, type AccessService, type Operation, type Part } from './access.service.js';
import type { ProjectEntity } from '../database/entities/project.entity.js';

const MESSAGE =
  'Only the project owner, someone the owner reports to, an administrator, or whoever a Permission record allows may change this project or its scopes';

/**
 * Who may change a project and its records (scopes, metrics): the authorization engine on the
 * project row (docs/authorization.md) — by default an administrator, the owner, or anyone the
 * owner reports to. Everyone else: 403 (404 when a Deny hides the project from them).
 */
export function assertCanManageProject(
  access: AccessService,
  ctx: RequestContext,
  project: Pick<ProjectEntity, 'id' | 'ownerId' | 'organizationId'>,
  op: Operation = 'update',
  part: Part = 'row',
): Promise<void> {
  return access.assert(ctx, op, Row.project(project), part, MESSAGE, ['Project', project.id]);
}

/** Creating a project, or handing one to a new owner, is creating a record of that owner's. */
export function assertCanGiveProjectTo(access: AccessService, ctx: RequestContext, ownerId: string): Promise<void> {
  return access.assertCanManageIndividual(ctx, ownerId, 'create', MESSAGE);
}
