import { ADMIN_SCOPE } from '../auth/api-token.js';
import type { Caller } from '../common/context/request-context.js';
import { ForbiddenError, NotFoundError, ScopeMissingError } from '../common/errors/errors.js';

/**
 * Privilege-bearing writes (docs/security.md, "Privileges"): who may grant administrator rights,
 * set a password (and so sign in as someone), or move an administrator's sign-in name or e-mail
 * (and so take over their account, or their single sign-on match).
 *
 * - The individual of a **global administrator** is written (changed, deleted, restored) only by a
 *   global administrator: a site administrator of the same site gets 403, and an API token or a
 *   SCIM client, to which a global administrator is invisible, 404.
 * - An **API token** sets `IsAdmin`, a `Password`, or the `UserName`/`UserEmail` of an
 *   administrator only when it holds the scope `admin` (docs/identity.md warns what that scope
 *   is); `*:write` does not cover it. SCIM provisioning never does (src/modules/scim).
 * - A **person** keeps the rules of docs/individuals.md: `IsAdmin` only by an administrator, the
 *   login data only by the person or an administrator.
 */
export interface PrivilegeTarget {
  /** The individual's id (for the 404 of an invisible record). */
  id: string;
  isAdmin: boolean;
  isGlobalAdmin: boolean;
}

/** What a write changes of the privilege-bearing fields. */
export interface PrivilegeChange {
  /** IsAdmin set to another value (on create: set true). */
  isAdmin: boolean;
  /** A password set. */
  password: boolean;
  /** UserName or UserEmail changed. */
  login: boolean;
}

const NONE: PrivilegeChange = { isAdmin: false, password: false, login: false };

/** Throws when the caller may not write the individual `target` (null: a new one) with `change`. */
export function assertPrivilegeChange(caller: Caller, target: PrivilegeTarget | null, change: PrivilegeChange = NONE): void {
  if (target?.isGlobalAdmin && !caller.isGlobalAdmin) {
    if (caller.kind === 'service') throw new NotFoundError('Individual', target.id);
    throw new ForbiddenError('Only a global administrator may change, delete or restore the individual of a global administrator');
  }
  if (caller.kind !== 'service') return;
  const granted = change.isAdmin || change.password || (change.login && (target?.isAdmin ?? false));
  if (granted && !(caller.scopes ?? []).includes(ADMIN_SCOPE)) {
    throw new ScopeMissingError(ADMIN_SCOPE, 'IsAdmin, a Password, and the UserName or UserEmail of an administrator');
  }
}
