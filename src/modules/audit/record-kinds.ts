import { Injectable, OnApplicationBootstrap } from '@nestjs/common';
import type { AccessRule } from '../../common/auth/access.decorators.js';
import type { RequestContext } from '../../common/context/request-context.js';
import { ApiTokensService } from '../api-tokens/api-tokens.service.js';
import { ArchivesService } from '../archives/archives.service.js';
import { AssessmentsService } from '../assessments/assessments.service.js';
import { BasicRoleDialogsService } from '../basic-roles/basic-role-dialogs.service.js';
import { BasicRolesService } from '../basic-roles/basic-roles.service.js';
import { ColorsService } from '../colors/colors.service.js';
import { CommentsService } from '../comments/comments.service.js';
import { CommitmentsService } from '../commitments/commitments.service.js';
import { CoreValuesService } from '../core-values/core-values.service.js';
import { DialogsService } from '../dialogs/dialogs.service.js';
import { GoalsService } from '../goals/goals.service.js';
import { IdentityProvidersService } from '../identity-providers/identity-providers.service.js';
import { IndividualsService } from '../individuals/individuals.service.js';
import { ListItemsService } from '../list-items/list-items.service.js';
import { OrganizationMembersService } from '../organizations/organization-members.service.js';
import { OrganizationsService } from '../organizations/organizations.service.js';
import { PerformanceMetricsService } from '../performance-metrics/performance-metrics.service.js';
import { PeriodsService } from '../periods/periods.service.js';
import { PermissionsService } from '../permissions/permissions.service.js';
import { ProjectsService } from '../projects/projects.service.js';
import { SecurityGroupsService } from '../security-groups/security-groups.service.js';
import { TasksService } from '../tasks/tasks.service.js';
import { ROW_TYPE_DEPARTMENT } from '../../database/entities/organization.entity.js';
import { HISTORY_PATHS } from './history-paths.js';

/** One kind of record with a history route, a sync route and a rendered event payload (docs/audit.md, docs/delta-sync.md). */
export interface RecordKind {
  /** The path segment of its collection: `GET /v4/{path}/{id}/history`, `GET /v4/sync/{path}`. */
  path: string;
  /** The kind the audit trail names its changes by (src/database/journal.ts `kindOf`). */
  kind: string;
  /** Integer ids (goals, colors, periods, commitments); guids otherwise. */
  intId: boolean;
  /** The access rule of the record's own GET: a caller who does not meet it reads none of the kind's history or changes. */
  access: AccessRule;
  /** The record as its GET answers it for this caller: 404 when it is not of the site, 403 when the caller may not read it. */
  read(ctx: RequestContext, id: string): Promise<object>;
  /** False: webhook payloads carry no `Record` of this kind (a webhook's own record holds its signing secret). */
  inEvents?: false;
  /** Which of the records its GET answers the collection lists (`/departments/{id}` reads organizations too; its list does not). */
  listed?: (record: object) => boolean;
}

type Reader<I> = (ctx: RequestContext, id: I) => Promise<object>;
const guid = (path: string, kind: string, access: AccessRule, read: Reader<string>): RecordKind => ({ path, kind, intId: false, access, read });
const int = (path: string, kind: string, access: AccessRule, read: Reader<number>): RecordKind => ({
  path,
  kind,
  intId: true,
  access,
  read: (ctx, id) => read(ctx, Number(id)),
});

/**
 * The declarative table of record kinds: collection path, trail kind, the access rule of its GET,
 * and how a record is read through its own feature's service (so "whoever may read the record" is
 * that service's rule). Features above this one (webhooks) add their kind with `register`.
 */
@Injectable()
export class RecordKinds implements OnApplicationBootstrap {
  private readonly byPath = new Map<string, RecordKind>();
  private readonly byKind = new Map<string, RecordKind>();

  constructor(
    individuals: IndividualsService,
    organizations: OrganizationsService,
    members: OrganizationMembersService,
    periods: PeriodsService,
    projects: ProjectsService,
    goals: GoalsService,
    colors: ColorsService,
    values: CoreValuesService,
    commitments: CommitmentsService,
    comments: CommentsService,
    listItems: ListItemsService,
    basicRoles: BasicRolesService,
    basicRoleDialogs: BasicRoleDialogsService,
    dialogs: DialogsService,
    tasks: TasksService,
    assessments: AssessmentsService,
    metrics: PerformanceMetricsService,
    archives: ArchivesService,
    permissions: PermissionsService,
    securityGroups: SecurityGroupsService,
    apiTokens: ApiTokensService,
    identityProviders: IdentityProvidersService,
  ) {
    const table: RecordKind[] = [
      guid('individuals', 'individual', 'authenticated', (c, id) => individuals.get(c, id)),
      // Departments and organizations share one table: `departments` reads both, and renders the kind's events.
      {
        ...guid('departments', 'organization', 'authenticated', (c, id) => organizations.get(c, id)),
        listed: (r) => (r as { RowType?: number }).RowType === ROW_TYPE_DEPARTMENT,
      },
      guid('organizations', 'organization', 'authenticated', (c, id) => organizations.getOrganization(c, id)),
      guid('departmentmembers', 'organization-member', 'authenticated', (c, id) => members.get(c, id)),
      int('periods', 'period', 'authenticated', (c, id) => periods.get(c, id)),
      guid('projects', 'project', 'authenticated', (c, id) => projects.get(c, id)),
      int('goals', 'goal', 'authenticated', (c, id) => goals.get(c, id)),
      int('colors', 'color', 'authenticated', (c, id) => colors.get(c, id)),
      guid('corevalues', 'core-value', 'pm', (c, id) => values.get(c, id)),
      int('commitments', 'commitment', 'pm', (c, id) => commitments.get(c, id)),
      guid('comments', 'comment', 'authenticated', (c, id) => comments.get(c, id)),
      // One table, four collections: each path reads only its own kind of item (else 404).
      ...listItems.readers().map((r) => guid(r.path, 'list-item', 'authenticated', r.read)),
      guid('basicroles', 'basic-role', 'authenticated', (c, id) => basicRoles.get(c, id)),
      guid('basicroledialogs', 'basic-role-dialog', 'authenticated', (c, id) => basicRoleDialogs.getById(c, id)),
      guid('dialogs', 'dialog', 'pm', (c, id) => dialogs.get(c, id)),
      guid('tasks', 'task', 'pm', (c, id) => tasks.get(c, id)),
      guid('assessments', 'assessment', 'pm', (c, id) => assessments.get(c, id)),
      guid('metrics', 'metric', 'pm', (c, id) => metrics.get(c, id)),
      guid('archives', 'archive', 'authenticated', (c, id) => archives.get(c, id)),
      guid('permissions', 'permission', 'authenticated', (c, id) => permissions.get(c, id)),
      guid('securitygroups', 'security-group', 'admin', (c, id) => securityGroups.get(c, id)),
      guid('apitokens', 'api-token', 'admin', (c, id) => apiTokens.get(c, id)),
      guid('identityproviders', 'identity-provider', 'admin', (c, id) => identityProviders.get(c, id)),
    ];
    for (const k of table) this.add(k);
    // Events name the table's kind: an item of any of the four kinds renders as its own kind's GET.
    this.byKind.set('list-item', { ...this.byPath.get('accountabilities')!, read: (c, id) => listItems.getAny(c, id) });
  }

  /** Adds the kind of a feature that builds on this module (webhooks). */
  register(k: RecordKind): void {
    this.add(k);
  }

  /** Every collection of HISTORY_PATHS has its kind, and no other (the OpenAPI enum is that list). */
  onApplicationBootstrap(): void {
    const declared = new Set<string>(HISTORY_PATHS);
    const missing = [...declared].filter((p) => !this.byPath.has(p));
    const extra = [...this.byPath.keys()].filter((p) => !declared.has(p));
    if (missing.length || extra.length)
      throw new Error(`HISTORY_PATHS and the record kinds disagree: missing ${missing.join(', ')}; not declared ${extra.join(', ')}`);
  }

  paths(): string[] {
    return [...this.byPath.keys()];
  }

  ofPath(path: string): RecordKind | undefined {
    return this.byPath.get(path);
  }

  /** The kind that renders the events of a trail kind (undefined: payloads carry no record). */
  ofKind(kind: string): RecordKind | undefined {
    const k = this.byKind.get(kind);
    return k?.inEvents === false ? undefined : k;
  }

  private add(k: RecordKind): void {
    if (this.byPath.has(k.path)) throw new Error(`record kind ${k.path} declared twice`);
    this.byPath.set(k.path, k);
    if (!this.byKind.has(k.kind)) this.byKind.set(k.kind, k);
  }
}
