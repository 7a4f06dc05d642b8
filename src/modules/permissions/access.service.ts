import { Injectable } from '@nestjs/common';
import { RequestContext } from '../../common/context/request-context.js';
import { ForbiddenError } from '../../common/errors/errors.js';
import { isInReportingChain, subordinateIds } from '../../database/queries/trees.js';
import { TenantDb } from '../../database/tenant-db.js';
import { IndividualEntity } from '../individuals/individual.entity.js';

/** The caller's rights on one individual (Individual.CanRead/CanUpdate/CanDelete/CanDelegate). */
export interface Rights {
  read: boolean;
  update: boolean;
  delete: boolean;
  delegate: boolean;
}

const ALL: Rights = { read: true, update: true, delete: true, delegate: true };

/**
 * Authorization decisions (docs/authorization.md), kept in one service so Permission records can join the
 * evaluation later without touching the modules that ask. Today it applies the defaults:
 * administrators may do everything in their site; every member reads the site's individuals,
 * organizations and departments; an individual reads and updates their own records and those of
 * everyone who reports to them, directly or down the PrimaryReportsTo chain.
 */
@Injectable()
export class AccessService {
  constructor(private readonly db: TenantDb) {}

  /** The ids of everyone reporting to the individual, at any depth (one recursive query). */
  subordinatesOf(ctx: RequestContext, individualId: string): Promise<Set<string>> {
    return subordinateIds(this.db, ctx, individualId);
  }

  /** Whether `managerId` is above `individualId` in the reporting chain. */
  reportsTo(ctx: RequestContext, individualId: string, managerId: string): Promise<boolean> {
    return isInReportingChain(this.db, ctx, individualId, managerId);
  }

  /** May the caller change records owned by this individual (the individual, their goals, items…)? */
  async canManageIndividual(ctx: RequestContext, individualId: string): Promise<boolean> {
    const me = ctx.user;
    if (me.isAdmin) return true;
    if (!me.individualId) return false;
    if (me.individualId === individualId) return true;
    return this.reportsTo(ctx, individualId, me.individualId);
  }

  /** 403 unless the caller may change records owned by this individual. */
  async assertCanManageIndividual(ctx: RequestContext, individualId: string): Promise<void> {
    if (!(await this.canManageIndividual(ctx, individualId))) {
      throw new ForbiddenError('Only the individual, someone they report to, or an administrator may change this');
    }
  }

  /** The caller's rights on each of these individuals, with at most one query for the batch. */
  async rightsOn(ctx: RequestContext, individuals: readonly Pick<IndividualEntity, 'id'>[]): Promise<Map<string, Rights>> {
    const me = ctx.user;
    const out = new Map<string, Rights>();
    if (me.isAdmin) {
      for (const i of individuals) out.set(i.id, ALL);
      return out;
    }
    const others = individuals.filter((i) => i.id !== me.individualId);
    const subordinates = me.individualId && others.length > 0 ? await this.subordinatesOf(ctx, me.individualId) : new Set<string>();
    for (const i of individuals) {
      const own = i.id === me.individualId || subordinates.has(i.id);
      out.set(i.id, { read: true, update: own, delete: false, delegate: false });
    }
    return out;
  }
}
