import { Injectable } from '@nestjs/common';
import type { RequestContext } from '../../common/context/request-context.js';
import { ArchivesService } from '../archives/archives.service.js';
import { AssessmentsService } from '../assessments/assessments.service.js';
import { BasicRolesService } from '../basic-roles/basic-roles.service.js';
import { ColorsService } from '../colors/colors.service.js';
import { DialogsService } from '../dialogs/dialogs.service.js';
import { GoalsService } from '../goals/goals.service.js';
import { IndividualsService } from '../individuals/individuals.service.js';
import { OrganizationsService } from '../organizations/organizations.service.js';
import { PerformanceMetricsService } from '../performance-metrics/performance-metrics.service.js';
import { PeriodsService } from '../periods/periods.service.js';
import { PermissionsService } from '../permissions/permissions.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { SecurityGroupsService } from '../security-groups/security-groups.service.js';
import { TasksService } from '../tasks/tasks.service.js';
import { HISTORY_PATHS } from './history-paths.js';

/** One kind of record with a history route and a rendered event payload (docs/audit.md). */
export interface RecordKind {
  /** The path segment of its collection: `GET /v4/{path}/{id}/history`. */
  path: string;
  /** The kind the audit trail names its changes by (src/database/journal.ts `kindOf`). */
  kind: string;
  /** Integer ids (goals, colors, periods); guids otherwise. */
  intId: boolean;
  /** The record as its GET answers it for this caller: 404 when it is not of the site, 403 when the caller may not read it. */
  read(ctx: RequestContext, id: string): Promise<object>;
}

/**
 * The declarative table of record kinds: collection path, trail kind, and how a record is read
 * through its own feature's service (so "whoever may read the record" is that service's rule).
 */
@Injectable()
export class RecordKinds {
  private readonly byPath = new Map<string, RecordKind>();
  private readonly byKind = new Map<string, RecordKind>();

  constructor(
    individuals: IndividualsService,
    organizations: OrganizationsService,
    periods: PeriodsService,
    projects: ProjectsService,
    goals: GoalsService,
    colors: ColorsService,
    basicRoles: BasicRolesService,
    dialogs: DialogsService,
    tasks: TasksService,
    assessments: AssessmentsService,
    metrics: PerformanceMetricsService,
    archives: ArchivesService,
    permissions: PermissionsService,
    securityGroups: SecurityGroupsService,
  ) {
    const guid = (path: string, kind: string, read: (ctx: RequestContext, id: string) => Promise<object>): RecordKind => ({ path, kind, intId: false, read });
    const int = (path: string, kind: string, read: (ctx: RequestContext, id: number) => Promise<object>): RecordKind => ({
      path,
      kind,
      intId: true,
      read: (ctx, id) => read(ctx, Number(id)),
    });
    const table: RecordKind[] = [
      guid('individuals', 'individual', (c, id) => individuals.get(c, id)),
      guid('organizations', 'organization', (c, id) => organizations.getOrganization(c, id)),
      guid('departments', 'organization', (c, id) => organizations.get(c, id)),
      int('periods', 'period', (c, id) => periods.get(c, id)),
      guid('projects', 'project', (c, id) => projects.get(c, id)),
      int('goals', 'goal', (c, id) => goals.get(c, id)),
      int('colors', 'color', (c, id) => colors.get(c, id)),
      guid('basicroles', 'basic-role', (c, id) => basicRoles.get(c, id)),
      guid('dialogs', 'dialog', (c, id) => dialogs.get(c, id)),
      guid('tasks', 'task', (c, id) => tasks.get(c, id)),
      guid('assessments', 'assessment', (c, id) => assessments.get(c, id)),
      guid('metrics', 'metric', (c, id) => metrics.get(c, id)),
      guid('archives', 'archive', (c, id) => archives.get(c, id)),
      guid('permissions', 'permission', (c, id) => permissions.get(c, id)),
      guid('securitygroups', 'security-group', (c, id) => securityGroups.get(c, id)),
    ];
    for (const k of table) {
      this.byPath.set(k.path, k);
      // The first path of a kind renders its events (departments and organizations share one table: `departments` reads both).
      if (!this.byKind.has(k.kind) || k.path === 'departments') this.byKind.set(k.kind, k);
    }
    const declared = new Set<string>(HISTORY_PATHS);
    if (declared.size !== this.byPath.size || [...this.byPath.keys()].some((p) => !declared.has(p)))
      throw new Error('HISTORY_PATHS and the record kinds table disagree');
  }

  paths(): string[] {
    return [...this.byPath.keys()];
  }

  ofPath(path: string): RecordKind | undefined {
    return this.byPath.get(path);
  }

  ofKind(kind: string): RecordKind | undefined {
    return this.byKind.get(kind);
  }
}
