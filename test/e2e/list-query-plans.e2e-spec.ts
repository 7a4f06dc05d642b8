import type { EntityTarget, ObjectLiteral } from 'typeorm';
import { RequestContext } from '../../src/common/context/request-context.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity } from '../../src/database/entities/organization.entity.js';
import { GoalEntity } from '../../src/database/entities/goal.entity.js';
import { TaskEntity } from '../../src/database/entities/task.entity.js';
import { ProjectEntity } from '../../src/database/entities/project.entity.js';
import { PeriodEntity } from '../../src/database/entities/period.entity.js';
import { type ListScope, pageKeysOf } from '../../src/database/list-query-sql.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { ListQueries, type Queryable, type QueryableField } from '../../src/http/wire/list-query.js';
import { Individual } from '../../src/modules/individuals/dto/individual.dto.js';
import { Organization } from '../../src/modules/organizations/dto/organization.dto.js';
import { Goal } from '../../src/modules/goals/dto/goal.dto.js';
import { Task } from '../../src/modules/tasks/dto/task.dto.js';
import { Project } from '../../src/modules/projects/dto/project.dto.js';
import { Period } from '../../src/modules/periods/dto/period.dto.js';
import { Metric } from '../../src/modules/performance-metrics/dto/metric.dto.js';
import { MetricEntity } from '../../src/database/entities/metric.entity.js';
import { CoreValueEntity } from '../../src/database/entities/core-value.entity.js';
import { CoreValue } from '../../src/modules/core-values/dto/core-value.dto.js';
import { DialogEntity } from '../../src/database/entities/dialog.entity.js';
import { Dialog } from '../../src/modules/dialogs/dto/dialog.dto.js';
import { CommentEntity } from '../../src/database/entities/comment.entity.js';
import { Comment } from '../../src/modules/comments/dto/comment.dto.js';
import { ListItemEntity } from '../../src/database/entities/list-item.entity.js';
import { ListItem } from '../../src/modules/list-items/dto/list-item.dto.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import { OrganizationMember } from '../../src/modules/organizations/dto/organization-member.dto.js';
import { PermissionEntity } from '../../src/database/entities/permission.entity.js';
import { Permission } from '../../src/modules/permissions/dto/permission.dto.js';
import { CommitmentEntity } from '../../src/database/entities/commitment.entity.js';
import { Commitment } from '../../src/modules/commitments/dto/commitment.dto.js';
import { AssessmentEntity } from '../../src/database/entities/assessment.entity.js';
import { Assessment } from '../../src/modules/assessments/dto/assessment.dto.js';
import { BasicRoleEntity } from '../../src/database/entities/basic-role.entity.js';
import { BasicRoleDialogEntity } from '../../src/database/entities/basic-role-dialog.entity.js';
import { BasicRole, BasicRoleDialog, IndividualBasicRolesCount } from '../../src/modules/basic-roles/dto/basic-role.dto.js';
import { ColorEntity } from '../../src/database/entities/color.entity.js';
import { Color } from '../../src/modules/colors/dto/color.dto.js';
import { SiteEntity } from '../../src/database/entities/site.entity.js';
import { Site } from '../../src/modules/sites/dto/site.dto.js';
import { SecurityGroupEntity } from '../../src/database/entities/security-group.entity.js';
import { SecurityGroup } from '../../src/modules/security-groups/dto/security-group.dto.js';
import { WebhookEntity } from '../../src/database/entities/webhook.entity.js';
import { WebhookDeliveryEntity, WebhookDeliveryMysqlEntity } from '../../src/database/entities/webhook-delivery.entity.js';
import { Webhook, WebhookDelivery } from '../../src/modules/webhooks/dto/webhook.dto.js';
import { ApiTokenEntity } from '../../src/database/entities/api-token.entity.js';
import { ApiToken } from '../../src/modules/api-tokens/dto/api-token.dto.js';
import { IdentityProviderEntity } from '../../src/database/entities/identity-provider.entity.js';
import { IdentityProvider } from '../../src/modules/identity-providers/dto/identity-provider.dto.js';
import { ArchiveEntity } from '../../src/database/entities/archive.entity.js';
import { Archive } from '../../src/modules/archives/dto/archive.dto.js';
import { ImportJobEntity } from '../../src/database/entities/import-job.entity.js';
import { ImportJob } from '../../src/modules/imports/dto/import-job.dto.js';
import { LISTED_IMPORTS } from '../../src/modules/imports/imports.service.js';
import { createSite, TestSite } from '../factories/index.js';
import { DB_KIND, startApp, TestApp } from './harness.js';

/**
 * What docs/queries.md promises of a filter's cost: every filterable and sortable field is served
 * by an index that starts with site_id, so the statement of a queried page never reads the table
 * by a scan. Checked on the plans the database makes (EXPLAIN on MySQL/MariaDB, EXPLAIN QUERY PLAN
 * on SQLite) of every field's comparison and sort, on two sites of a few thousand records.
 */
describe(`queried lists: every filterable and sortable field has an index (${DB_KIND})`, () => {
  let t: TestApp;
  let acme: TestSite;
  /** The individual and period whose goals the goal lists' plans are made for. */
  const goalsOf = { individualId: '', periodId: 0 };
  /** The assignee whose task list's plans are made for. */
  const tasksOf = { assignedToId: '' };
  /** The period whose dialogs, and the dialog whose comments, the dialog and comment lists' plans are made for. */
  const dialogsIn = { periodId: 0 };
  const commentsOn = { ancestorType: 'dialogs', ancestorId: '' };
  /** The individual whose accountabilities, and the projects whose scopes, the list-item lists' plans are made for. */
  const itemsOf = { ancestorId: '', projects: [] as string[] };
  /** The department whose members, and the individual whose memberships, the membership lists' plans are made for. */
  const membersOf = { organizationId: '', individualId: '' };
  /** The principals and the row whose permissions the permission lists' plans are made for. */
  const permissionsOf = { principals: [] as string[], rowId: '' };
  /** The individual, and the individuals of a dashboard, whose commitments the commitment lists' plans are made for, in a period. */
  const commitmentsOf = { individualId: '', individuals: [] as string[], periodId: 0 };
  /** The individual whose basic roles the basic-role list's plans are made for. */
  const rolesOf = { individualId: '' };
  /** The dialog whose basic-role ratings the rating list's plans are made for. */
  const ratingsIn = { dialogId: '' };
  /** The units of a person (their memberships and primary one) the unit list's plans are made for. */
  const unitsOf = { ids: [] as string[] };
  /** The webhook whose delivery log the delivery list's plans are made for. */
  const deliveriesOf = { webhookId: '' };
  /** The individual and the project whose archives the archive lists' plans are made for. */
  const archivesOf = { individualId: '', projectId: '' };
  const Deliveries = DB_KIND === 'mysql' ? WebhookDeliveryMysqlEntity : WebhookDeliveryEntity;

  beforeAll(async () => {
    t = await startApp();
    acme = await createSite(t);
    const other = await createSite(t);
    for (const site of [acme, other]) {
      const people = Array.from({ length: 1500 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        firstName: `F${i % 97}`,
        lastName: `L${(i * 7919) % 1500}`,
        email: `p${i}@x.test`,
        hireDate: new Date(Date.UTC(2020, i % 12, 1 + (i % 28))),
        primaryOrganizationId: site.orgId,
        primaryTitle: 'T',
        created: new Date(),
        updated: new Date(Date.UTC(2025, i % 12, 1 + (i % 28))),
      }));
      for (let k = 0; k < people.length; k += 500) await t.ds.getRepository(IndividualEntity).insert(people.slice(k, k + 500));
      const units = Array.from({ length: 600 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `U${(i * 31) % 600}`,
        rowType: i % 5 ? 56 : 4,
        rank: i % 9,
        parentId: site.orgId,
        created: new Date(),
        updated: new Date(Date.UTC(2025, i % 12, 1 + (i % 28))),
      }));
      await t.ds.getRepository(OrganizationEntity).insert(units);
      // Goals: 30 people with 40 goals each in two periods.
      const periods = await t.ds.getRepository(PeriodEntity).save(
        [2025, 2026].map((y) => ({
          siteId: site.siteId,
          name: `P${y}`,
          startDate: new Date(Date.UTC(y, 0, 1)),
          endDate: new Date(Date.UTC(y, 11, 31)),
          closed: false,
          created: new Date(),
          updated: new Date(),
        })),
      );
      const goals = people.slice(0, 30).flatMap((p, j) =>
        Array.from({ length: 40 }, (_, i) => ({
          siteId: site.siteId,
          individualId: p.id,
          periodId: periods[i % 2].id,
          name: `G${(i * 13 + j) % 40}`,
          completed: i % 3 === 0,
          dueDate: new Date(Date.UTC(2025 + (i % 2), i % 12, 1 + (i % 28))),
          created: new Date(),
          updated: new Date(),
        })),
      );
      for (let k = 0; k < goals.length; k += 400) await t.ds.getRepository(GoalEntity).insert(goals.slice(k, k + 400));
      if (site === acme) Object.assign(goalsOf, { individualId: people[0].id, periodId: periods[1].id });
      // Tasks: 2,000 assigned to 40 people, about people and departments.
      const tasks = Array.from({ length: 2000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: i % 4 ? 'individual' : 'department',
        ancestorId: i % 4 ? people[i % 40].id : units[i % 600].id,
        dialogId: i % 10 ? null : crypto.randomUUID(),
        assignedToId: people[i % 40].id,
        name: `T${(i * 17) % 2000}`,
        dueDate: i % 9 ? new Date(Date.UTC(2026, i % 12, 1 + (i % 28))) : null,
        completed: i % 3 === 0,
        deleted: i % 11 === 0,
        created: new Date(Date.UTC(2025, 0, 1) + i * 60000),
        updated: new Date(),
      }));
      for (let k = 0; k < tasks.length; k += 400) await t.ds.getRepository(TaskEntity).insert(tasks.slice(k, k + 400) as never);
      if (site === acme) tasksOf.assignedToId = people[0].id;
      // Projects: 1,500 owned by 5 people (an owner has 300: walking an index in order clearly beats sorting them).
      const projects = Array.from({ length: 1500 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `P${(i * 19) % 1500}`,
        ownerId: people[i % 5].id,
        organizationId: i % 5 ? site.orgId : null,
        startDate: null,
        dueDate: i % 9 ? new Date(Date.UTC(2026, i % 12, 1 + (i % 28))) : null,
        completedDate: i % 4 ? null : new Date(Date.UTC(2026, i % 12, 2)),
        deleted: i % 13 === 0,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < projects.length; k += 400) await t.ds.getRepository(ProjectEntity).insert(projects.slice(k, k + 400) as never);
      // Periods: 600 more (quarters and years of many years).
      const spans = Array.from({ length: 600 }, (_, i) => ({
        siteId: site.siteId,
        name: `S${(i * 7) % 600}`,
        startDate: new Date(Date.UTC(1900 + Math.floor(i / 4), (i % 4) * 3, 1)),
        endDate: new Date(Date.UTC(1900 + Math.floor(i / 4), (i % 4) * 3 + 3, 0)),
        closed: i % 3 === 0,
        created: new Date(),
        updated: new Date(Date.UTC(2025, i % 12, 1 + (i % 28))),
      }));
      await t.ds.getRepository(PeriodEntity).insert(spans);
      // Metrics: 1,500 about 5 people.
      const metrics = Array.from({ length: 1500 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: 'individual',
        ancestorId: people[i % 5].id,
        name: `M${(i * 23) % 1500}`,
        is8020: i % 4 === 0,
        target: i % 7 ? (i % 200) / 4 : null,
        higherIsBetter: true,
        deleted: i % 13 === 0,
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < metrics.length; k += 400) await t.ds.getRepository(MetricEntity).insert(metrics.slice(k, k + 400) as never);
      // Core values: 600.
      const values = Array.from({ length: 600 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `V${(i * 29) % 600}`,
        rank: i % 9,
        deleted: i % 11 === 0,
        created: new Date(),
        updated: new Date(),
      }));
      await t.ds.getRepository(CoreValueEntity).insert(values as never);
      // Dialogs: 1,500 in two periods, led by and about 40 people and 100 departments.
      const dialogs = Array.from({ length: 1500 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: i % 4 ? 'individual' : 'department',
        ancestorId: i % 4 ? people[(i + 1) % 40].id : units[i % 100].id,
        leaderId: people[(i * 7) % 40].id,
        periodId: periods[i % 2].id,
        scheduledDate: new Date(Date.UTC(2025 + (i % 2), i % 12, 1 + (i % 28))),
        occurredDate: i % 3 ? new Date(Date.UTC(2025 + (i % 2), i % 12, 2 + (i % 27))) : null,
        notes: null,
        deleted: i % 13 === 0,
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < dialogs.length; k += 400) await t.ds.getRepository(DialogEntity).insert(dialogs.slice(k, k + 400) as never);
      if (site === acme) dialogsIn.periodId = periods[1].id;
      // Comments: 3,000 on 30 dialogs and 30 people, by 40 authors.
      const comments = Array.from({ length: 3000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        ancestorType: i % 2 ? 'dialogs' : 'individuals',
        ancestorId: i % 2 ? dialogs[i % 30].id : people[i % 30].id,
        body: `C${i}`,
        authorId: people[(i * 3) % 40].id,
        authorFirstName: 'F',
        authorLastName: 'L',
        deleted: i % 17 === 0,
        deletedByRef: false,
        created: new Date(Date.UTC(2025, i % 12, 1 + (i % 28), i % 24)),
        updated: new Date(),
      }));
      for (let k = 0; k < comments.length; k += 400) await t.ds.getRepository(CommentEntity).insert(comments.slice(k, k + 400) as never);
      if (site === acme) commentsOn.ancestorId = dialogs[1].id;
      // List items: 1,500 accountabilities of 5 people (300 each) and 600 scopes of 30 projects.
      const items = Array.from({ length: 2100 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: i < 1500 ? 'accountability' : 'projectscope',
        ancestorId: i < 1500 ? people[i % 5].id : projects[i % 30].id,
        rank: i % 7,
        name: `I${(i * 37) % 2100}`,
        description: '',
        deleted: i % 13 === 0,
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < items.length; k += 400) await t.ds.getRepository(ListItemEntity).insert(items.slice(k, k + 400) as never);
      if (site === acme) Object.assign(itemsOf, { ancestorId: people[0].id, projects: projects.slice(0, 3).map((p) => p.id) });
      // Department memberships: every person in one of 20 departments, the first 5 people in 20 more each.
      const memberRows = [
        ...people.map((p, i) => ({ individualId: p.id, organizationId: units[i % 20].id })),
        ...people.slice(0, 5).flatMap((p) => units.slice(20, 40).map((u) => ({ individualId: p.id, organizationId: u.id }))),
      ].map((m, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        individualId: m.individualId,
        organizationId: m.organizationId,
        title: i % 9 === 0 ? null : `L${(i * 37) % 500}`,
        deletedByRef: i % 17 === 0,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < memberRows.length; k += 400) await t.ds.getRepository(OrganizationMemberEntity).insert(memberRows.slice(k, k + 400) as never);
      if (site === acme) Object.assign(membersOf, { organizationId: units[0].id, individualId: people[0].id });
      // Permissions: 2,000 records, on 400 people and 100 units, of 50 principals.
      const principals = Array.from({ length: 50 }, () => crypto.randomUUID());
      const grants = Array.from({ length: 2000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        rowId: i % 5 ? people[i % 400].id : units[i % 100].id,
        rowType: i % 5 ? 39 : 56,
        principalId: principals[Math.floor(i / 40) % 50],
        principalType: Math.floor(i / 40) % 50 < 40 ? 1 : 2,
        childType: i % 5 ? 0 : 19,
        createState: 0,
        readState: i % 3,
        updateState: 0,
        deleteState: 0,
        delegateState: 0,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < grants.length; k += 400) await t.ds.getRepository(PermissionEntity).insert(grants.slice(k, k + 400) as never);
      if (site === acme) Object.assign(permissionsOf, { principals: principals.slice(0, 3), rowId: people[1].id });
      // Commitments: 2,000 of 40 people and 20 departments, in two periods (the same period rows as goals).
      const commitments = Array.from({ length: 2000 }, (_, i) => ({
        siteId: site.siteId,
        type: i % 5 ? 'individual' : 'department',
        ancestorId: i % 5 ? people[i % 40].id : units[i % 20].id,
        periodId: periods[i % 2].id,
        name: `L${(i * 37) % 2000}`,
        description: null,
        dueDate: i % 6 ? new Date(Date.UTC(2025, i % 12, 1 + (i % 28))) : null,
        completed: i % 3 === 0,
        completedDate: null,
        rank: i % 7,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < commitments.length; k += 400) await t.ds.getRepository(CommitmentEntity).insert(commitments.slice(k, k + 400) as never);
      // Assessments: 2,000 of 40 subjects in two periods.
      const assessments = Array.from({ length: 2000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: ['leader', 'team', 'self'][i % 3],
        subjectId: people[i % 40].id,
        assessorId: people[(i + 1) % 40].id,
        periodId: periods[i % 2].id,
        created: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
        updated: new Date(),
      }));
      for (let k = 0; k < assessments.length; k += 400) await t.ds.getRepository(AssessmentEntity).insert(assessments.slice(k, k + 400) as never);
      // Security groups: 500, their names repeating.
      const groups = Array.from({ length: 500 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `L${(i * 37) % 300}`,
        description: null,
        externalId: null,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < groups.length; k += 400) await t.ds.getRepository(SecurityGroupEntity).insert(groups.slice(k, k + 400) as never);
      // Basic roles: 2,000 of 40 people, one in six deleted.
      const roles = Array.from({ length: 2000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        individualId: people[i % 40].id,
        name: `L${(i * 37) % 500}`,
        description: null,
        rank: i % 7,
        dialogsPerPeriod: 1,
        deleted: i % 6 === 5,
        deletedByRef: false,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < roles.length; k += 400) await t.ds.getRepository(BasicRoleEntity).insert(roles.slice(k, k + 400) as never);
      if (site === acme) rolesOf.individualId = people[1].id;
      // Basic-role ratings: 3,000 in 15 dialogs (200 each, one per role), one in six unrated.
      const ratings = Array.from({ length: 3000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        basicRoleId: roles[Math.floor(i / 15)].id,
        dialogId: dialogs[i % 15].id,
        rating: i % 6 ? (i % 5) + 1 : null,
        comment: i % 4 ? `L${i % 300}` : null,
        created: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
        updated: new Date(Date.UTC(2025, i % 12, 1 + (i % 28))),
      }));
      for (let k = 0; k < ratings.length; k += 400) await t.ds.getRepository(BasicRoleDialogEntity).insert(ratings.slice(k, k + 400) as never);
      if (site === acme) ratingsIn.dialogId = dialogs[1].id;
      if (site === acme) unitsOf.ids = units.slice(0, 12).map((u) => u.id);
      // Colors: 300 bands.
      const colors = Array.from({ length: 300 }, (_, i) => ({
        siteId: site.siteId,
        name: `L${(i * 37) % 200}`,
        colorValue: i,
        minPercent: i % 100,
        maxPercent: (i % 100) + 5,
        rank: i % 9,
        created: new Date(),
        updated: new Date(),
      }));
      await t.ds.getRepository(ColorEntity).insert(colors as never);
      // Webhooks: 1,000; the delivery log: 3,000 attempts of 10 of them.
      const hooks = Array.from({ length: 1000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        url: `https://hooks.example.test/${i}`,
        eventTypes: 'period.closed',
        secret: `whsec_${i}`,
        active: i % 4 !== 0,
        created: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
        updated: new Date(),
      }));
      for (let k = 0; k < hooks.length; k += 400) await t.ds.getRepository(WebhookEntity).insert(hooks.slice(k, k + 400) as never);
      const attempts = Array.from({ length: 3000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        webhookId: hooks[i % 10].id,
        eventId: `msg_${Math.floor(i / 3)}`,
        eventType: ['individual.updated', 'dialog.held', 'L1.x'][i % 3],
        seq: i,
        attempt: (i % 3) + 1,
        status: i % 5 ? 'failed' : 'delivered',
        durationMs: 5,
        payload: '{}',
        created: new Date(Date.UTC(2025, 0, 1) + i * 60_000),
        updated: new Date(),
      }));
      for (let k = 0; k < attempts.length; k += 400) await t.ds.getRepository(Deliveries).insert(attempts.slice(k, k + 400) as never);
      if (site === acme) deliveriesOf.webhookId = hooks[1].id;
      // API tokens: 1,000.
      const tokens = Array.from({ length: 1000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `L${i % 300} sync`,
        scopes: '*:read',
        hint: `pms_${i}`.slice(0, 12),
        secretHash: (crypto.randomUUID() + crypto.randomUUID()).replace(/-/g, ''),
        expires: i % 5 ? new Date(Date.UTC(2026, i % 12, 1)) : null,
        revoked: i % 7 ? null : new Date(Date.UTC(2025, i % 12, 1)),
        lastUsed: i % 3 ? new Date(Date.UTC(2025, i % 12, 1 + (i % 28))) : null,
        created: new Date(Date.UTC(2024, 0, 1) + i * 60_000),
        updated: new Date(),
      }));
      for (let k = 0; k < tokens.length; k += 400) await t.ds.getRepository(ApiTokenEntity).insert(tokens.slice(k, k + 400) as never);
      // Archives: 3,000, under 30 individuals and 10 projects, in two periods.
      const archives = Array.from({ length: 3000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        ancestorId: i % 4 ? people[i % 30].id : units[i % 10].id,
        ancestorType: i % 4 ? 'individual' : 'project',
        itemId: crypto.randomUUID(),
        itemType: i % 8 === 4 ? 'dashboard' : 'metric',
        periodId: periods[i % 2].id,
        name: `L${i % 400}`,
        snapshot: '{}',
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < archives.length; k += 400) await t.ds.getRepository(ArchiveEntity).insert(archives.slice(k, k + 400) as never);
      if (site === acme) Object.assign(archivesOf, { individualId: people[1].id, projectId: units[0].id });
      // Identity providers: 1,000.
      const providers = Array.from({ length: 1000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        name: `L${i % 300} SSO`,
        issuer: `https://idp${i % 50}.example.test/${i}`,
        clientId: `L${i}`,
        userClaim: 'email',
        jitProvisioning: false,
        enabled: i % 4 !== 0,
        created: new Date(),
        updated: new Date(),
      }));
      for (let k = 0; k < providers.length; k += 400) await t.ds.getRepository(IdentityProviderEntity).insert(providers.slice(k, k + 400) as never);
      // Import jobs: 1,000 that ended.
      const imports = Array.from({ length: 1000 }, (_, i) => ({
        id: crypto.randomUUID(),
        siteId: site.siteId,
        kind: ['individuals', 'departments', 'goals', 'L1x'][i % 4],
        mode: ['create', 'update', 'upsert'][i % 3],
        format: ['csv', 'xlsx', 'ndjson', 'json', 'xml'][i % 5],
        state: ['succeeded', 'failed', 'cancelled'][i % 3],
        caller: '{}',
        started: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000),
        finished: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000 + 60_000),
        created: new Date(Date.UTC(2025, 0, 1) + i * 3_600_000),
        updated: new Date(),
      }));
      for (let k = 0; k < imports.length; k += 400) await t.ds.getRepository(ImportJobEntity).insert(imports.slice(k, k + 400) as never);
      if (site === acme)
        Object.assign(commitmentsOf, { individualId: people[1].id, individuals: people.slice(1, 4).map((p) => p.id), periodId: periods[1].id });
    }
    // Sites (the tenants, not a tenant table): 500 more.
    const sites = Array.from({ length: 500 }, (_, i) => ({
      id: crypto.randomUUID(),
      name: `L${(i * 37) % 300}`,
      performanceManagement: true,
      created: new Date(),
      updated: new Date(),
    }));
    await t.ds.getRepository(SiteEntity).insert(sites);
    if (DB_KIND === 'mysql')
      await t.ds.query(
        'ANALYZE TABLE individuals, organizations, goals, tasks, projects, periods, metrics, core_values, dialogs, comments, list_items, organization_members, permissions, commitments, assessments, security_groups, basic_roles, basic_role_dialogs, colors, sites, webhooks, webhook_deliveries, api_tokens, identity_providers, archives, import_jobs',
      );
    // SQLite plans from the fixed statistics the service writes at start (sqlite-planner-stats.ts),
    // as in production: an ANALYZE here would check other plans than the service makes.
  });
  afterAll(() => t?.close());

  /** A plan's rows, as the database explains the statement. */
  async function plan(statement: { text: string }, params: unknown[]): Promise<Record<string, unknown>[]> {
    return (await t.ds.query(`${DB_KIND === 'mysql' ? 'EXPLAIN' : 'EXPLAIN QUERY PLAN'} ${statement.text}`, params)) as Record<string, unknown>[];
  }
  /** Whether a plan reads the table through an index (never a full scan). */
  const indexed = (rows: Record<string, unknown>[]) =>
    DB_KIND === 'mysql'
      ? // A primary-key look-up that finds no row is read as a constant before the plan ("Impossible WHERE … const tables"), and a
        // filter that contradicts the list's scope (AssignedToID eq another on an assignee's list) reads no row ("Impossible WHERE").
        rows.every((r) => r.type !== 'ALL' && (r.key !== null || /const table|^Impossible WHERE$/.test(String(r.Extra))))
      : rows.every((r) => !/^SCAN t\b/.test(String(r.detail)) || /USING (COVERING )?INDEX/.test(String(r.detail)));
  /** Whether a plan sorts the rows it reads (MySQL/MariaDB's filesort; SQLite's temporary tree for the whole order) instead of walking an index in order. */
  const sorts = (rows: Record<string, unknown>[]) =>
    DB_KIND === 'mysql' ? rows.some((r) => /filesort/.test(String(r.Extra))) : rows.some((r) => /USE TEMP B-TREE FOR ORDER BY/.test(String(r.detail)));

  const value = (f: QueryableField) => {
    switch (f.kind) {
      case 'string':
        return '"L1"';
      case 'guid':
        return `"${acme.orgId}"`;
      case 'int':
      case 'decimal':
        return '3';
      case 'bool':
        return 'false';
      default:
        return '"2025-06-01"';
    }
  };

  /** `union`: the list is several index ranges (an individual's dialogs, the scopes of the caller's projects), whose page is sorted once read. */
  const lists: {
    name: string;
    entity: EntityTarget<ObjectLiteral>;
    resource: { Response: never; queryable: Queryable };
    scope: () => ListScope;
    union?: boolean;
    /** Not a tenant table (the sites): its indexes need not start with site_id. */
    global?: boolean;
    /** The fewest plans the list's declaration asks for (default 5: an ID look-up, a comparison and an order each way). */
    min?: number;
  }[] = [
    { name: 'individuals', entity: IndividualEntity, resource: Individual as never, scope: () => ({ equal: { deleted: false } }) },
    { name: 'departments', entity: OrganizationEntity, resource: Organization as never, scope: () => ({ equal: { rowType: 56, deleted: false } }) },
    { name: 'goals', entity: GoalEntity, resource: Goal as never, scope: () => ({ equal: { ...goalsOf } }) },
    { name: 'tasks', entity: TaskEntity, resource: Task as never, scope: () => ({ equal: { deleted: false } }) },
    { name: 'tasks of an assignee', entity: TaskEntity, resource: Task as never, scope: () => ({ equal: { ...tasksOf, deleted: false } }) },
    { name: 'metrics', entity: MetricEntity, resource: Metric as never, scope: () => ({ equal: { deleted: false } }) },
    {
      name: 'metrics of an individual',
      entity: MetricEntity,
      resource: Metric as never,
      scope: () => ({ equal: { kind: 'individual', ancestorId: tasksOf.assignedToId, deleted: false } }),
    },
    { name: 'core values', entity: CoreValueEntity, resource: CoreValue as never, scope: () => ({ equal: { deleted: false } }) },
    { name: 'periods', entity: PeriodEntity, resource: Period as never, scope: () => ({}) },
    { name: 'projects', entity: ProjectEntity, resource: Project as never, scope: () => ({ equal: { deleted: false } }) },
    {
      name: 'projects of an owner',
      entity: ProjectEntity,
      resource: Project as never,
      scope: () => ({ equal: { ownerId: tasksOf.assignedToId, deleted: false } }),
    },
    { name: 'dialogs', entity: DialogEntity, resource: Dialog as never, scope: () => ({ equal: { ...dialogsIn, deleted: false } }) },
    {
      name: 'dialogs of an individual',
      entity: DialogEntity,
      resource: Dialog as never,
      scope: (): ListScope => ({
        equal: { ...dialogsIn, deleted: false },
        anyOf: [{ leaderId: tasksOf.assignedToId }, { kind: 'individual', ancestorId: tasksOf.assignedToId }],
      }),
      union: true,
    },
    { name: 'comments of a record', entity: CommentEntity, resource: Comment as never, scope: () => ({ equal: { ...commentsOn, deleted: false } }) },
    {
      name: 'comments of an author',
      entity: CommentEntity,
      resource: Comment as never,
      scope: () => ({ equal: { authorId: tasksOf.assignedToId, deleted: false } }),
    },
    {
      name: 'list items of an owner',
      entity: ListItemEntity,
      resource: ListItem as never,
      scope: () => ({ equal: { kind: 'accountability', ancestorId: itemsOf.ancestorId, deleted: false } }),
    },
    {
      name: 'scopes of the projects the caller owns',
      entity: ListItemEntity,
      resource: ListItem as never,
      scope: () => ({ equal: { kind: 'projectscope', deleted: false }, in: { property: 'ancestorId', values: itemsOf.projects } }),
      union: true,
    },
    {
      name: 'members of a department',
      entity: OrganizationMemberEntity,
      resource: OrganizationMember as never,
      scope: () => ({ equal: { organizationId: membersOf.organizationId, deletedByRef: false } }),
    },
    {
      name: 'memberships of an individual',
      entity: OrganizationMemberEntity,
      resource: OrganizationMember as never,
      scope: () => ({ equal: { individualId: membersOf.individualId, deletedByRef: false } }),
    },
    { name: 'permissions', entity: PermissionEntity, resource: Permission as never, scope: () => ({}) },
    {
      name: 'permissions of the caller and their groups',
      entity: PermissionEntity,
      resource: Permission as never,
      scope: () => ({ in: { property: 'principalId', values: permissionsOf.principals } }),
      union: true,
    },
    {
      name: 'permissions of a row',
      entity: PermissionEntity,
      resource: Permission as never,
      scope: () => ({ equal: { rowType: 39, rowId: permissionsOf.rowId } }),
    },
    {
      name: 'commitments of a record',
      entity: CommitmentEntity,
      resource: Commitment as never,
      scope: () => ({ equal: { type: 'individual', ancestorId: commitmentsOf.individualId, periodId: commitmentsOf.periodId } }),
    },
    {
      name: 'commitments of a dashboard level',
      entity: CommitmentEntity,
      resource: Commitment as never,
      scope: () => ({ equal: { type: 'individual', periodId: commitmentsOf.periodId }, in: { property: 'ancestorId', values: commitmentsOf.individuals } }),
      union: true,
    },
    { name: 'assessments', entity: AssessmentEntity, resource: Assessment as never, scope: () => ({ equal: { periodId: commitmentsOf.periodId } }) },
    {
      name: 'assessments of a subject',
      entity: AssessmentEntity,
      resource: Assessment as never,
      scope: () => ({ equal: { subjectId: commitmentsOf.individualId, periodId: commitmentsOf.periodId } }),
    },
    { name: 'security groups', entity: SecurityGroupEntity, resource: SecurityGroup as never, scope: () => ({}) },
    {
      name: 'basic roles of an individual',
      entity: BasicRoleEntity,
      resource: BasicRole as never,
      scope: () => ({ equal: { individualId: rolesOf.individualId, deleted: false } }),
    },
    {
      name: 'basic-role ratings of a dialog',
      entity: BasicRoleDialogEntity,
      resource: BasicRoleDialog as never,
      scope: () => ({ equal: { dialogId: ratingsIn.dialogId } }),
    },
    {
      name: 'departments of a person',
      entity: OrganizationEntity,
      resource: Organization as never,
      scope: () => ({ equal: { deleted: false }, in: { property: 'id', values: unitsOf.ids } }),
      union: true,
    },
    { name: 'colors', entity: ColorEntity, resource: Color as never, scope: () => ({}) },
    // The global administrator's list of every site: no site_id (the sites are the tenants).
    { name: 'sites', entity: SiteEntity, resource: Site as never, scope: () => ({ global: true }), global: true },
    // The site's counts are read over its live individuals; only IndividualID (their primary key) filters.
    {
      name: 'basic roles counted per individual',
      entity: IndividualEntity,
      resource: IndividualBasicRolesCount as never,
      scope: () => ({ equal: { deleted: false } }),
      min: 1,
    },
    { name: 'webhooks', entity: WebhookEntity, resource: Webhook as never, scope: () => ({}) },
    { name: 'API tokens', entity: ApiTokenEntity, resource: ApiToken as never, scope: () => ({}) },
    { name: 'archives of an individual', entity: ArchiveEntity, resource: Archive as never, scope: () => ({ equal: { ancestorId: archivesOf.individualId } }) },
    {
      name: 'metric archives of a project',
      entity: ArchiveEntity,
      resource: Archive as never,
      scope: () => ({ equal: { ancestorId: archivesOf.projectId, itemType: 'metric' } }),
    },
    { name: 'identity providers', entity: IdentityProviderEntity, resource: IdentityProvider as never, scope: () => ({}) },
    // A job whose file is still being received is not listed.
    { name: 'import jobs', entity: ImportJobEntity, resource: ImportJob as never, scope: () => LISTED_IMPORTS },
    {
      name: 'deliveries of a webhook',
      entity: Deliveries,
      resource: WebhookDelivery as never,
      scope: () => ({ equal: { webhookId: deliveriesOf.webhookId } }),
    },
  ];

  it.each(lists)(
    '$name: a comparison on each filterable field and an order by each sortable field use an index',
    async ({ entity, resource, scope, union, min }) => {
      const db = t.app.get(TenantDb);
      const queries = t.app.get(ListQueries);
      const ctx = RequestContext.system(acme.siteId);
      const checked: string[] = [];
      for (const f of resource.queryable.values()) {
        const asks: Record<string, string>[] = [];
        if (f.filter) asks.push({ filter: `${f.name} eq ${value(f)}` });
        if (f.filter && f.kind === 'string') asks.push({ filter: `${f.name} sw "L1"` });
        if (f.filter && ['int', 'decimal', 'date'].includes(f.kind)) asks.push({ filter: `${f.name} ge ${value(f)}` });
        if (f.sort) asks.push({ sort: f.name }, { sort: `-${f.name}`, cursor: 'start' });
        for (const ask of asks) {
          const query = queries.read(ctx, resource, ask);
          const keys = pageKeysOf(db, ctx, entity, scope(), query, [], 100, 0);
          const rows = await plan(keys.statement, keys.params);
          expect({ ask, plan: indexed(rows) ? 'index' : rows }).toEqual({ ask, plan: 'index' });
          if (ask.sort && !union) expect({ ask, sorts: sorts(rows) ? rows : false }).toEqual({ ask, sorts: false });
          checked.push(JSON.stringify(ask));
        }
      }
      expect(checked.length).toBeGreaterThanOrEqual(min ?? 5);
    },
  );

  it.each(lists)('$name: each filterable or sortable field is a column of an index that starts with site_id', async ({ entity, resource, global }) => {
    const metadata = t.app.get(TenantDb).metadataOf(entity);
    const runner = t.ds.createQueryRunner();
    const table = await runner.getTable(metadata.tableName);
    await runner.release();
    const indexes = (table?.indices ?? []).map((i) => i.columnNames);
    for (const f of resource.queryable.values()) {
      const column = metadata.findColumnWithPropertyName(f.property)!.databaseName;
      const served = column === 'id' || indexes.some((cols) => (global || cols[0] === 'site_id') && cols.includes(column));
      expect({ field: f.name, column, served }).toEqual({ field: f.name, column, served: true });
    }
  });
});
