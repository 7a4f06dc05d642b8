import { Injectable } from '@nestjs/common';
import { FindOptionsWhere, In } from 'typeorm';
import { RequestContext } from '../../common/context/request-context.js';
import type { MergePatch } from '../../http/pipeline/merge-patch.js';
import { patchResource } from '../../database/patch-record.js';
import { FieldError, ForbiddenError, ValidationError } from '../../common/errors/errors.js';
import { Page, pageOf, QueriedPage } from '../../http/wire/pagination.js';
import { asksQuery, ListQueries } from '../../http/wire/list-query.js';
import { readQueriedRows } from '../../database/list-query-sql.js';
import { assertBodyId } from '../../http/wire/ids.js';
import { TenantDb, TenantTx } from '../../database/tenant-db.js';
import { liveIndividualErrors } from '../../database/queries/record-kinds.js';
import { PeriodsService } from '../periods/periods.service.js';
import { AccessService, Row, type Operation } from '../../authorization/access.service.js';
import { AssessmentRatingEntity } from '../../database/entities/assessment-rating.entity.js';
import { ratingErrors } from './assessment-ratings.js';
import { AssessmentEntity } from '../../database/entities/assessment.entity.js';
import { Assessment, AssessmentDto, AssessmentRatingInput, CreateAssessmentDto, UpdateAssessmentDto } from './dto/assessment.dto.js';
import { periodErrors, periodGone } from '../../database/queries/period-reference.js';
import { QueriedPeriodQuery } from '../../http/wire/period-query.js';
import { DeclaresRecordKind } from '../../database/registries/record-kinds.js';

/** Lists run in creation order; the id keeps paging stable. */
const LIST_ORDER = { created: 'ASC', id: 'ASC' } as const;
/** The kinds of assessment of them a subject sees (not the team's). */
const OWN_KINDS = ['leader', 'self'];
/** The same order for a queried list: Created, then ID. */
const BY_CREATED = [{ field: Assessment.queryable.get('created')!, desc: false }] as const;

/**
 * Assessments and their ratings (docs/dialogs-tasks-roles-assessments.md). The ratings
 * live in their own table and are written in the assessment's transaction; reading a page of
 * assessments loads all their ratings in one query.
 *
 * Who: an assessment is written by its assessor or an administrator. A non-administrator records
 * assessments only as the assessor, and only a self assessment of themselves, a leader assessment
 * of someone who reports to them, or a team assessment of someone they report to. It is read by
 * administrators, its assessor, anyone above the subject in the reporting chain, and the subject
 * (self and leader assessments; team assessments reach the subject only as dashboard figures).
 */
@Injectable()
@DeclaresRecordKind<AssessmentsService>({ path: 'assessments', kind: 'assessment', access: 'pm', read: (s, ctx, id) => s.get(ctx, id) })
export class AssessmentsService {
  constructor(
    private readonly db: TenantDb,
    private readonly periods: PeriodsService,
    private readonly access: AccessService,
    private readonly queries: ListQueries,
  ) {}

  private readonly assessments = this.db.scoped(AssessmentEntity, 'Assessment');

  private readonly ratings = this.db.scoped(AssessmentRatingEntity, 'AssessmentRating');

  // ------------------------------------------------------------------ reads

  private async page(ctx: RequestContext, q: QueriedPeriodQuery, where: FindOptionsWhere<AssessmentEntity>): Promise<Page<AssessmentDto>> {
    const period = await this.periods.resolve(ctx, q.period);
    if (period) where.periodId = period.id;
    if (asksQuery(q)) {
      // Queried (docs/queries.md): the right to the list was checked; the subject, the kinds they may see and the period come first.
      const query = this.queries.read(ctx, Assessment, q);
      const { take, skip } = pageOf(q);
      const { kind, ...equal } = where as Record<string, string | number>;
      const scope = { equal, ...(kind === undefined ? {} : { in: { property: 'kind', values: OWN_KINDS } }) };
      const page = await readQueriedRows(this.db, ctx, AssessmentEntity, scope, query, BY_CREATED, take, skip);
      const next = query.cursor === null ? undefined : this.queries.next(query, page.next);
      return new QueriedPage(await this.toDtos(ctx, page.rows), page.total, take, skip, query.fields, next);
    }
    const [rows, total] = await this.assessments(ctx).findAndCount({ where, order: LIST_ORDER, ...pageOf(q) });
    return Page.of(await this.toDtos(ctx, rows), total, q);
  }

  /** Every assessment of the site (the route is for administrators). */
  list(ctx: RequestContext, q: QueriedPeriodQuery): Promise<Page<AssessmentDto>> {
    return this.page(ctx, q, {});
  }

  /**
   * The assessments of a subject, for the subject, anyone above them and administrators (else
   * 403); the subject themselves does not see the team assessments of them.
   */
  async listForIndividual(ctx: RequestContext, subjectId: string, q: QueriedPeriodQuery): Promise<Page<AssessmentDto>> {
    await this.access.assertCanReadRecordsOf(ctx, subjectId, 'list their assessments');
    const ownOnly = !ctx.user.isAdmin && ctx.user.individualId === subjectId;
    return this.page(ctx, q, { subjectId, ...(ownOnly ? { kind: In(OWN_KINDS) } : {}) });
  }

  async get(ctx: RequestContext, id: string): Promise<AssessmentDto> {
    const row = await this.assessments(ctx).get(id);
    await this.assertCanRead(ctx, row);
    return this.toDto(ctx, row);
  }

  // ------------------------------------------------------------------ writes

  async create(ctx: RequestContext, dto: CreateAssessmentDto): Promise<AssessmentDto> {
    const assessorId = dto.AssessorID ?? (dto.Kind === 'self' ? dto.SubjectID : ctx.user.individualId);
    if (!assessorId) throw new ValidationError([{ field: 'AssessorID', message: 'AssessorID is required: the caller has no individual in this site' }]);
    return this.db.transaction(ctx, async (tx) => {
      const ratings = dto.Ratings ?? [];
      const errors: FieldError[] = [
        ...(await liveIndividualErrors(this.db, ctx, dto.SubjectID, 'SubjectID')),
        ...(await liveIndividualErrors(this.db, ctx, assessorId, 'AssessorID')),
        ...(await periodErrors(this.db, ctx, dto.PeriodID)),
        ...kindErrors(dto.Kind, dto.SubjectID, assessorId),
        ...(await ratingErrors(this.db, ctx, dto.SubjectID, ratings)),
      ];
      if (errors.length) throw new ValidationError(errors);
      await this.assertCanRecord(ctx, dto.Kind, dto.SubjectID, assessorId);
      const row = await this.assessments(ctx)
        .insert({ ...Assessment.toColumns(dto, 'create'), assessorId })
        .catch(periodGone(dto.PeriodID));
      return this.toDto(ctx, row, await this.writeRatings(tx, row.id, ratings));
    });
  }

  async update(ctx: RequestContext, id: string, dto: UpdateAssessmentDto): Promise<AssessmentDto> {
    assertBodyId(id, dto.ID);
    return this.db.transaction(ctx, async (tx) => {
      const row = await tx.repo(AssessmentEntity, 'Assessment').lock(id);
      await this.assertCanWrite(ctx, row, 'update');
      const patch = Assessment.toColumns(dto, 'update');
      const next = { ...row, ...patch };
      const stored = await this.ratings(ctx).find({ where: { assessmentId: id }, order: { position: 'ASC' } });
      const errors: FieldError[] = [
        ...(next.periodId === null ? [{ field: 'PeriodID', message: 'PeriodID cannot be cleared: an assessment always has a period' }] : []),
        ...(next.periodId !== null && next.periodId !== row.periodId ? await periodErrors(this.db, ctx, next.periodId) : []),
        ...(dto.Ratings ? await ratingErrors(this.db, ctx, row.subjectId, dto.Ratings, stored) : []),
      ];
      if (errors.length) throw new ValidationError(errors);
      // Always an UPDATE of the assessment, so its version (and ETag) moves with its ratings.
      const saved = await this.assessments(ctx).update(id, patch, { ifMatch: true }).catch(periodGone(next.periodId));
      if (dto.Ratings === undefined) return this.toDto(ctx, saved, stored);
      await this.ratings(ctx).deleteWhere({ assessmentId: id });
      return this.toDto(ctx, saved, await this.writeRatings(tx, id, dto.Ratings ?? []));
    });
  }

  /** PATCH: the assessment with its ratings, locked, merged with the patch, then `update` (src/database/patch-record.ts). */
  patch(ctx: RequestContext, id: string, patch: MergePatch): Promise<AssessmentDto> {
    const show = (row: AssessmentEntity) => this.toDto(ctx, row);
    return patchResource(this.db, ctx, patch, Assessment, this.assessments(ctx), id, (dto) => this.update(ctx, id, dto), show);
  }

  /** Removes the assessment and its ratings (assessments are not soft-deleted); answers `{}`. */
  async remove(ctx: RequestContext, id: string): Promise<Record<string, never>> {
    await this.db.transaction(ctx, async (tx) => {
      const row = await tx.repo(AssessmentEntity, 'Assessment').lock(id);
      await this.assertCanWrite(ctx, row, 'delete');
      await this.ratings(ctx).deleteWhere({ assessmentId: id });
      await this.assessments(ctx).remove(id, { ifMatch: true });
    });
    return {};
  }

  private async writeRatings(tx: TenantTx, assessmentId: string, ratings: readonly AssessmentRatingInput[]): Promise<AssessmentRatingEntity[]> {
    const repo = tx.repo(AssessmentRatingEntity, 'AssessmentRating');
    const out: AssessmentRatingEntity[] = [];
    for (const [position, r] of ratings.entries()) {
      out.push(await repo.insert({ assessmentId, position, itemKind: r.ItemKind, itemId: r.ItemID ?? null, rating: r.Rating }));
    }
    return out;
  }

  // ------------------------------------------------------------------ access

  /**
   * The assessment's own rule (assessor, subject, the subject's managers), under the engine on the
   * subject's records (docs/authorization.md): a Deny hides it (404), an Allow opens it.
   */
  private async assertCanRead(ctx: RequestContext, a: AssessmentEntity): Promise<void> {
    const me = ctx.user.individualId;
    await this.access.assertVisible(ctx, Row.individual(a.subjectId), ['Assessment', a.id]);
    if (ctx.user.isAdmin || (me && me === a.assessorId)) return;
    if (me && me === a.subjectId && a.kind !== 'team') return;
    if (me && me !== a.subjectId && (await this.access.reportsTo(ctx, a.subjectId, me))) return;
    if (await this.access.allowedExplicitly(ctx, 'read', Row.individual(a.subjectId))) return;
    throw new ForbiddenError(
      'Only the assessor, the subject (not for team assessments), anyone the subject reports to, or an administrator may read this assessment',
    );
  }

  private async assertCanWrite(ctx: RequestContext, a: AssessmentEntity, op: Operation): Promise<void> {
    const message = 'Only the assessor or an administrator may change or delete an assessment';
    if (!(ctx.user.isAdmin || ctx.user.individualId === a.assessorId)) throw new ForbiddenError(message);
    await this.access.assertNotDenied(ctx, op, Row.individual(a.subjectId), 'A Permission record denies the caller this on the subject’s records');
  }

  /** Who may record an assessment (see the class comment). */
  private async assertCanRecord(ctx: RequestContext, kind: AssessmentEntity['kind'], subjectId: string, assessorId: string): Promise<void> {
    if (ctx.user.isAdmin) return;
    await this.access.assertNotDenied(ctx, 'create', Row.individual(subjectId), 'A Permission record denies the caller assessments of this individual');
    const me = ctx.user.individualId;
    if (me !== assessorId) throw new ForbiddenError('Only an administrator may record an assessment for another assessor');
    if (kind === 'leader' && !(await this.access.reportsTo(ctx, subjectId, me))) {
      throw new ForbiddenError('A leader assessment is recorded by someone the subject reports to');
    }
    if (kind === 'team' && !(await this.access.reportsTo(ctx, me, subjectId))) {
      throw new ForbiddenError('A team assessment is recorded by someone who reports to the subject');
    }
  }

  // ------------------------------------------------------------------ helpers

  private async toDto(ctx: RequestContext, row: AssessmentEntity, ratings?: AssessmentRatingEntity[]): Promise<AssessmentDto> {
    if (ratings) return Assessment.toWire(row, { ratings: new Map([[row.id, ratings]]) });
    const [dto] = await this.toDtos(ctx, [row]);
    return dto;
  }

  /** Wire records with their ratings, loaded in one query for the whole page. */
  private async toDtos(ctx: RequestContext, rows: AssessmentEntity[]): Promise<AssessmentDto[]> {
    if (rows.length === 0) return [];
    const all = await this.ratings(ctx).find({ where: { assessmentId: In(rows.map((r) => r.id)) }, order: { assessmentId: 'ASC', position: 'ASC' } });
    const ratings = new Map<string, AssessmentRatingEntity[]>();
    for (const r of all) {
      const list = ratings.get(r.assessmentId);
      if (list) list.push(r);
      else ratings.set(r.assessmentId, [r]);
    }
    return rows.map((r) => Assessment.toWire(r, { ratings }));
  }
}

/** self: the assessor is the subject; leader and team: someone else. */
function kindErrors(kind: AssessmentEntity['kind'], subjectId: string, assessorId: string): FieldError[] {
  if (kind === 'self' && assessorId !== subjectId) return [{ field: 'AssessorID', message: 'AssessorID must equal SubjectID for a self assessment' }];
  if (kind !== 'self' && assessorId === subjectId) return [{ field: 'AssessorID', message: `AssessorID must not be the subject for a ${kind} assessment` }];
  return [];
}
