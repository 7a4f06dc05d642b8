import { Injectable } from '@nestjs/common';
import type { FindManyOptions, FindOptionsWhere } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import { FieldError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchRecord } from '../../database/patch-record.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../../database/entities/individual.entity.js';
import { PeriodsService } from '../periods/periods.service.js';
import { AccessService } from '../../authorization/access.service.js';
import { CreateGoalDto, Goal, GoalDto, type GoalOwner, UpdateGoalDto } from './dto/goal.dto.js';
import { nameOf } from '../../common/names.js';
import { GoalEntity } from '../../database/entities/goal.entity.js';
import { MEASURES } from './goal-measures.js';
import { periodErrors, periodGone } from '../../database/queries/period-reference.js';
import { joinedName, nameOfReferenced, namesOf, PERSON_NAME_COLUMNS } from '../../database/queries/names.js';
import { PeriodEntity } from '../../database/entities/period.entity.js';
import { PeriodQuery, QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';
import { DeclaresBulkWrites } from '../../database/registries/bulk-writers.js';
import { answerBulk, applyBulk, type BulkOptions, type BulkPlan, type BulkRun } from '../../database/bulk-write.js';
import type { BulkItemInput, BulkQuery, BulkRequest, BulkResultsDto } from '../../http/wire/bulk.js';

/** The order of a goal list without `sort=`: DueDate (then ID), as the plain list's. */
const BY_DUE_DATE = [{ field: Goal.queryable.get('duedate')!, desc: false }] as const;

/**
 * Personal goals (spec "Goal", docs/goals-colors-values-commitments.md). Goals are personal performance data: they are read and
 * written by the individual, anyone above them in the PrimaryReportsTo chain, and administrators
 * (AccessService.canManageIndividual); anyone else of the site gets 403. Goals are hard-deleted.
 */
@Injectable()
@DeclaresRecordKind<GoalsService>({ path: 'goals', kind: 'goal', intId: true, access: 'authenticated', read: (s, ctx, id) => s.get(ctx, Number(id)) })
@DeclaresBulkWrites<GoalsService>({
  path: 'goals',
  records: [CreateGoalDto, UpdateGoalDto, GoalDto],
  apply: (s, ctx, items, opts) => s.applyBatch(ctx, items, opts),
})
export class GoalsService {
  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly repo = this.db.scoped(GoalEntity, 'Goal');

  private assertCanRead(ctx: RequestContext, individualId: string, notFound?: [string, number]): Promise<void> {
    return this.access.assertCanManageIndividual(
      ctx,
      individualId,
      'read',
      'Only the individual, someone they report to, or an administrator may read their goals',
      notFound,
    );
  }

  /** One statement: the individual (its 404, its name for FullName) with the page (ScopedRepository.findAndCountUnder). */
  async listForIndividual(ctx: RequestContext, individualId: string, q: QueriedPeriodQuery): Promise<Page<GoalDto>> {
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the individual and the caller's right to read their goals come first.
      const individual = await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId);
      await this.assertCanRead(ctx, individual.id);
      return this.queried(ctx, individual, q, await this.periods.resolve(ctx, q.period));
    }
    const period = await this.periods.resolve(ctx, q.period).catch(async (e: unknown) => {
      // An unknown period is answered only to a caller who may read this individual's goals.
      await this.assertCanRead(ctx, (await this.db.repo(ctx, IndividualEntity, 'Individual').get(individualId)).id);
      throw e;
    });
    const { anchor, rows, total } = await this.repo(ctx).findAndCountUnder(
      { target: IndividualEntity, label: 'Individual', id: individualId, columns: PERSON_NAME_COLUMNS },
      this.pageOf(individualId, q, period),
    );
    await this.assertCanRead(ctx, anchor.id as string);
    return this.pageOfRows(ctx, rows, total, q, joinedName(anchor));
  }

  async listMine(ctx: RequestContext, q: QueriedPeriodQuery): Promise<Page<GoalDto>> {
    const me = ctx.user.individualId ? await this.db.repo(ctx, IndividualEntity, 'Individual').findById(ctx.user.individualId) : null;
    const period = await this.periods.resolve(ctx, q.period);
    if (asksQuery(q)) {
      const query = this.queries.read(ctx, Goal, q);
      if (!me)
        return new QueriedPage([], query.cursor === null ? 0 : -1, pageOf(q).take, pageOf(q).skip, query.fields, query.cursor === null ? undefined : null);
      return this.queried(ctx, me, q, period);
    }
    if (!me) return Page.of([], 0, q);
    return this.page(ctx, me, q, period);
  }

  /**
   * A queried page of one individual's goals in a period (docs/queries.md), once the caller may
   * read them: the filter within that individual and period, in the site; by DueDate then ID
   * unless sorted.
   */
  private async queried(ctx: RequestContext, individual: IndividualEntity, q: QueriedPeriodQuery, period: PeriodEntity | null): Promise<QueriedPage<GoalDto>> {
    const query = this.queries.read(ctx, Goal, q);
    const { take, skip } = pageOf(q);
    const scope = { equal: { individualId: individual.id, ...(period ? { periodId: period.id } : {}) } };
    const page = await readQueriedRows(this.db, ctx, GoalEntity, scope, query, BY_DUE_DATE, take, skip);
    const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
    const fullName = nameOf(individual) ?? 0;
    return new QueriedPage(
      this.repo(ctx).answers(page.rows, Goal, individual, () => fullName),
      page.total,
      take,
      skip,
      query.fields,
      next,
    );
  }

  private async page(ctx: RequestContext, individual: IndividualEntity, q: PeriodQuery, period: PeriodEntity | null): Promise<Page<GoalDto>> {
    const [rows, total] = await this.repo(ctx).findAndCount(this.pageOf(individual.id, q, period));
    return this.pageOfRows(ctx, rows, total, q, individual);
  }

  /** A page of one individual's goals: their FullName is the answers' variant (ScopedRepository.answers). */
  private pageOfRows(ctx: RequestContext, rows: GoalEntity[], total: number, q: PeriodQuery, owner: GoalOwner): Page<GoalDto> {
    const fullName = nameOf(owner) ?? 0;
    return Page.of(
      this.repo(ctx).answers(rows, Goal, owner, () => fullName),
      total,
      q,
    );
  }

  /** The goals of an individual in a period (all of them when the site has none), by DueDate then ID, paged. */
  private pageOf(individualId: string, q: PeriodQuery, period: PeriodEntity | null): FindManyOptions<GoalEntity> {
    const where: FindOptionsWhere<GoalEntity> = { individualId };
    if (period) where.periodId = period.id;
    return { where, order: { dueDate: 'ASC', id: 'ASC' }, ...pageOf(q) };
  }

  async get(ctx: RequestContext, id: number): Promise<GoalDto> {
    const [goal, individual] = await this.repo(ctx).getJoined(id, nameOfReferenced('individualId'));
    await this.assertCanRead(ctx, goal.individualId, ['Goal', id]);
    return Goal.toWire(goal, joinedName(individual));
  }

  async create(ctx: RequestContext, dto: CreateGoalDto): Promise<GoalDto> {
    return this.db.transaction(ctx, async () => {
      const errors: FieldError[] = [];
      const individual = await this.db.repo(ctx, IndividualEntity, 'Individual').findOne({ id: dto.IndividualID, deleted: false });
      if (!individual) errors.push({ field: 'IndividualID', message: `IndividualID ${dto.IndividualID} is not a live individual of this site` });
      errors.push(...(await periodErrors(this.db, ctx, dto.PeriodID)), ...checkMeasureDates(dto, null));
      if (errors.length) throw new ValidationError(errors);
      await this.access.assertCanManageIndividual(ctx, dto.IndividualID, 'create');
      // The period's foreign key stops a concurrent delete of the period from leaving this goal dangling.
      const row = await this.repo(ctx).insert(Goal.toColumns(dto, 'create')).catch(periodGone(dto.PeriodID));
      // The individual was read above: its name is the answer's FullName.
      return Goal.toWire(row, individual);
    });
  }

  async update(ctx: RequestContext, id: number, dto: UpdateGoalDto): Promise<GoalDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const current = await repo.lock(id);
      await this.access.assertCanManageIndividual(ctx, current.individualId, 'update', undefined, ['Goal', id]);
      const errors = [...(await periodErrors(this.db, ctx, dto.PeriodID, current.periodId)), ...checkMeasureDates(dto, current)];
      if (errors.length) throw new ValidationError(errors);
      const row = await repo.update(id, Goal.toColumns(dto, 'update'), { ifMatch: true }).catch(periodGone(dto.PeriodID));
      return this.toDto(ctx, row);
    });
  }

  /**
   * A batch of creates, updates and upserts of goals (docs/bulk.md), each through `create` or
   * `update`: what `POST /goals/bulk` and a file import run. IndividualID may be given by the
   * individual's ExternalID. Goals have no ExternalID: an item names its goal by ID (an upsert
   * without one creates; with one, updates it or is 404).
   */
  applyBatch(ctx: RequestContext, items: readonly BulkItemInput[], opts: BulkOptions): Promise<BulkRun> {
    return applyBulk(this.db, ctx, items, (c) => this.bulkPlan(c), opts);
  }

  /** `POST /goals/bulk`. */
  bulk(ctx: RequestContext, body: BulkRequest, q: BulkQuery): Promise<BulkResultsDto> {
    return answerBulk(this.db, ctx, body, q, (c) => this.bulkPlan(c));
  }

  private bulkPlan(ctx: RequestContext): BulkPlan<CreateGoalDto, UpdateGoalDto, number> {
    return {
      label: 'Goal',
      entity: GoalEntity,
      externalIds: false,
      intIds: true,
      create: CreateGoalDto,
      update: UpdateGoalDto,
      // POST /goals admits any member; `create` then holds the caller to the individual's goals.
      createRule: 'authenticated',
      refs: { IndividualID: IndividualEntity },
      createOne: (dto) => this.create(ctx, dto),
      updateOne: (id, dto) => this.update(ctx, id, dto),
      read: (id) => this.get(ctx, id),
    };
  }

  /** PATCH: the goal, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: number, patch: MergePatch): Promise<GoalDto> {
    return patchRecord(this.db, ctx, patch, {
      current: async () => Goal.toWire(await this.repo(ctx).lock(id), null),
      input: UpdateGoalDto,
      update: (dto) => this.update(ctx, id, dto),
    });
  }

  async remove(ctx: RequestContext, id: number): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async () => {
      const repo = this.repo(ctx);
      const current = await repo.lock(id);
      await this.access.assertCanManageIndividual(ctx, current.individualId, 'delete', undefined, ['Goal', id]);
      await repo.remove(id, { ifMatch: true });
    });
    return {};
  }

  private async toDto(ctx: RequestContext, goal: GoalEntity): Promise<GoalDto> {
    return Goal.toWire(goal, (await namesOf(this.db, ctx, [goal.individualId])).get(goal.individualId) ?? null);
  }
}

/** A measure's start after its end is a 400 naming the end date (docs/goals-colors-values-commitments.md). */
function checkMeasureDates(dto: CreateGoalDto | UpdateGoalDto, current: GoalEntity | null): FieldError[] {
  const errors: FieldError[] = [];
  for (const n of MEASURES) {
    const start = dto[`Measure${n}StartDate`];
    const sent = dto[`Measure${n}EndDate`];
    const end = sent === undefined ? (current?.[`measure${n}EndDate`] ?? null) : sent;
    if (start && end && start.getTime() > end.getTime()) {
      errors.push({ field: `Measure${n}EndDate`, message: `Measure${n}EndDate must not be before Measure${n}StartDate` });
    }
  }
  return errors;
}
