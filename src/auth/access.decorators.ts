import { applyDecorators, SetMetadata } from '@nestjs/common';
import { ApiBearerAuth, ApiForbiddenResponse, ApiUnauthorizedResponse } from '@nestjs/swagger';

/**
 * One composite decorator per access rule (docs/identity-and-tenancy.md). Each sets the metadata the global
 * AuthGuard reads and the OpenAPI security entries together. A route with none of them requires
 * an authenticated caller (default deny).
 */
export type AccessRule = 'public' | 'authenticated' | 'admin' | 'pm' | 'pm+admin' | 'global-admin' | 'scim';

export const ACCESS_KEY = 'pms:access';

const problem = (description: string) => ({ description, content: { 'application/problem+json': {}, 'application/problem+xml': {} } });

function secured(rule: AccessRule, forbidden?: string) {
  const decorators = [SetMetadata(ACCESS_KEY, rule), ApiBearerAuth('bearer'), ApiUnauthorizedResponse(problem('Missing, invalid or expired bearer token'))];
  if (forbidden) decorators.push(ApiForbiddenResponse(problem(forbidden)));
  return applyDecorators(...decorators);
}

/** No token needed (login, health, docs). */
export const Public = () => SetMetadata(ACCESS_KEY, 'public' satisfies AccessRule);

/** Any authenticated caller of the site (the default; use it to be explicit). */
export const Authenticated = () => secured('authenticated');

/** The Admin label (docs/identity-and-tenancy.md): a site administrator (Individual.IsAdmin) or a global administrator. */
export const Admin = () => secured('admin', 'The caller is not an administrator (problem type urn:pms:problem:admin-required)');

/** The PM label (docs/identity-and-tenancy.md): the caller's site has PerformanceManagement switched on. */
export const Pm = () => secured('pm', 'Performance management is disabled for the site (problem type urn:pms:problem:pm-disabled)');

/** Both labels: PM site and administrator. */
export const PmAdmin = () => secured('pm+admin', 'PM disabled for the site (pm-disabled) or caller not an administrator (admin-required)');

/** Global administrators only (site management). */
export const GlobalAdmin = () => secured('global-admin', 'The caller is not a global administrator');

/** SCIM provisioning (docs/identity.md): only an API token holding the scope `scim`; a person's token is 403. */
export const Scim = () => secured('scim', 'The caller is not an API token with the scope scim');
