import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import { AccessService, hiddenIndividuals, Row } from '../../authorization/access.service.js';
import { ROW_TYPE } from '../../database/entities/permission.entity.js';
import type { DashboardRow, RowType } from './dashboard-engine.js';

/** A row whose dashboard may be shown: its RowType and id. */
export interface DashboardCandidate {
  rowType: RowType;
  id: string;
}

const LABEL: Record<RowType, string> = { 4: 'Organization', 56: 'Department', 39: 'Individual' };

/**
 * Every visibility decision of the dashboards, in one place (docs/dashboards.md): a dashboard is
 * readable by whoever may read its row, as the authorization engine says (docs/authorization.md).
 * By default every member reads every individual, organization and department of the site; a Deny
 * on Read hides the row's dashboard too (404, as a row of another site), and lists leave it out.
 */
@Injectable()
export class DashboardAccess {
  constructor(private readonly access: AccessService) {}

  /**
   * 404 (NotFoundError) unless `row` — the row `id` of that RowType as loadRows read it from the
   * caller's site, or undefined — is there and readable by the caller. The row is the one the
   * answer is built from: a dashboard reads it once.
   */
  async assertCanRead(ctx: RequestContext, rowType: RowType, id: string, row: DashboardRow | undefined): Promise<void> {
    if (!row) throw new NotFoundError(LABEL[rowType], id);
    const facts = rowType === ROW_TYPE.individual ? Row.individual(id) : Row.unit({ id, rowType, managerId: row.managerId ?? null });
    await this.access.assert(ctx, 'read', facts, 'row', `The caller may not read this ${LABEL[rowType].toLowerCase()}`, [LABEL[rowType], id]);
  }

  /** The candidates whose dashboards the caller may read, in their order: at most two statements for any batch. */
  async readableRows<T extends DashboardCandidate>(ctx: RequestContext, candidates: readonly T[]): Promise<T[]> {
    const individuals = new Set(hiddenIndividuals(ctx.user));
    const units = new Set(await this.access.hiddenUnits(ctx));
    return candidates.filter((c) => !(c.rowType === 39 ? individuals.has(c.id) : units.has(c.id)));
  }
}
