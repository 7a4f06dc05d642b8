import { RequestContext } from '../../src/common/context/request-context.js';
import { TenantDb } from '../../src/database/tenant-db.js';
import { IndividualEntity } from '../../src/database/entities/individual.entity.js';
import { OrganizationEntity, ROW_TYPE_DEPARTMENT } from '../../src/database/entities/organization.entity.js';
import { OrganizationMemberEntity } from '../../src/database/entities/organization-member.entity.js';
import type { TestApp } from '../e2e/harness.js';

/** Data builders for organization and membership tests, straight through the data layer. */
export function tenant(t: TestApp, siteId: string) {
  const db = t.app.get(TenantDb);
  const ctx = RequestContext.system(siteId);
  return {
    orgs: db.repo(ctx, OrganizationEntity),
    members: db.repo(ctx, OrganizationMemberEntity),
    individuals: db.repo(ctx, IndividualEntity),
  };
}

/** A department (default) or organization of the site. */
export async function createOrg(
  t: TestApp,
  siteId: string,
  opts: { name?: string; parentId?: string | null; rowType?: number; managerId?: string | null; rank?: number; description?: string | null } = {},
): Promise<OrganizationEntity> {
  return tenant(t, siteId).orgs.insert({
    name: opts.name ?? `Dept ${Math.random().toString(36).slice(2, 8)}`,
    parentId: opts.parentId ?? null,
    rowType: opts.rowType ?? ROW_TYPE_DEPARTMENT,
    managerId: opts.managerId ?? null,
    rank: opts.rank ?? 0,
    description: opts.description ?? null,
    deleted: false,
    deletedByRef: false,
  });
}

/** A (non-primary) membership row. */
export function addMember(
  t: TestApp,
  siteId: string,
  individualId: string,
  organizationId: string,
  title: string | null = 'Member',
): Promise<OrganizationMemberEntity> {
  return tenant(t, siteId).members.insert({ individualId, organizationId, title, deletedByRef: false });
}

/** Reads an organization row as stored (for "nothing changed" checks). */
export async function readOrg(t: TestApp, id: string): Promise<OrganizationEntity | null> {
  return t.ds.getRepository(OrganizationEntity).findOneBy({ id });
}

export async function readMember(t: TestApp, id: string): Promise<OrganizationMemberEntity | null> {
  return t.ds.getRepository(OrganizationMemberEntity).findOneBy({ id });
}
