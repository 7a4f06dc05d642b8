import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { NotFoundError } from '../../common/errors/errors.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../individuals/individual.entity.js';
import { OrganizationEntity } from '../organizations/organization.entity.js';
import type { RowType } from './dashboard-engine.js';

/** A row whose dashboard may be shown: its RowType and id. */
export interface DashboardCandidate {
  rowType: RowType;
  id: string;
}

const LABEL: Record<RowType, string> = { 4: 'Organization', 56: 'Department', 39: 'Individual' };

/**
 * Every visibility decision of the dashboards, in one place (docs/dashboards.md). Today's rule is
 * the default of the authorization design: every member of a site reads every individual,
 * organization and department of it, so a dashboard is readable when its row exists in the
 * caller's site. When the authorization engine lands, these two methods ask it instead (a row the
 * caller may not read answers 404, as a row of another site does); nothing else in the module
 * decides who sees what.
 */
@Injectable()
export class DashboardAccess {
  constructor(private readonly db: TenantDb) {}

  /** 404 (NotFoundError) unless the caller may read the row's dashboard. */
  async assertCanRead(ctx: RequestContext, rowType: RowType, id: string): Promise<void> {
    const found =
      rowType === 39
        ? await this.db.repo(ctx, IndividualEntity, 'Individual').exists({ id })
        : await this.db.repo(ctx, OrganizationEntity, LABEL[rowType]).exists({ id, rowType });
    if (!found) throw new NotFoundError(LABEL[rowType], id);
  }

  /** The candidates whose dashboards the caller may read, in their order. Today: all of them. */
  async readableRows<T extends DashboardCandidate>(ctx: RequestContext, candidates: readonly T[]): Promise<T[]> {
    void ctx;
    return [...candidates];
  }
}
