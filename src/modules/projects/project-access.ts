import type { RequestContext } from '../../common/context/request-context.js';
import { ForbiddenError } from '../../common/errors/errors.js';
import type { AccessService } from '../permissions/access.service.js';
import type { ProjectEntity } from './project.entity.js';

/**
 * Who may change a project and its project scopes: an administrator, the owner, or anyone the
 * owner reports to (the AccessService rule for the owner's records). Everyone else: 403.
 */
export async function assertCanManageProject(access: AccessService, ctx: RequestContext, project: Pick<ProjectEntity, 'ownerId'>): Promise<void> {
  if (await access.canManageIndividual(ctx, project.ownerId)) return;
  throw new ForbiddenError('Only the project owner, someone the owner reports to, or an administrator may change this project or its scopes');
}
