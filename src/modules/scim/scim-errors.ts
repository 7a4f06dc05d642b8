import { ConflictError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import { ScimError } from './scim-protocol.js';

/** The SCIM attribute of each field of /v4 an error of IndividualsService or SecurityGroupsService may name. */
const ATTRIBUTES: Record<string, string> = {
  UserName: 'userName',
  FirstName: 'name.givenName',
  LastName: 'name.familyName',
  Email: 'emails',
  UserEmail: 'emails',
  PrimaryTitle: 'title',
  PrimaryReportsTo: 'manager',
  Name: 'displayName',
  members: 'members',
};
const FIELDS = new RegExp(`\\b(${Object.keys(ATTRIBUTES).join('|')})\\b`, 'g');
const scimNames = (s: string) => s.replace(FIELDS, (f) => ATTRIBUTES[f] ?? f);

/**
 * Runs a SCIM write and answers its errors in SCIM's terms (docs/identity.md, "Errors"): a rule
 * of the /v4 services that refused a field is 400 invalidValue naming the SCIM attribute, a taken
 * userName 409 uniqueness, a reporting cycle 400 invalidValue, a deleted person 404.
 */
export async function asScimError<T>(fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (e) {
    if (e instanceof ValidationError) {
      const detail = e.errors.length ? e.errors.map((f) => `${ATTRIBUTES[f.field] ?? f.field}: ${scimNames(f.message)}`).join('; ') : scimNames(e.detail ?? '');
      throw new ScimError(400, 'invalidValue', detail);
    }
    if (e instanceof ConflictError) {
      if (e.code === 'duplicate-username') throw new ScimError(409, 'uniqueness', `userName: ${scimNames(e.detail ?? 'already taken')}`);
      if (e.code === 'duplicate-external-id') throw new ScimError(409, 'uniqueness', 'externalId: another User of this site has it');
      if (e.code === 'cycle') throw new ScimError(400, 'invalidValue', `manager: ${scimNames(e.detail ?? 'would make a reporting cycle')}`);
      if (e.code === 'deleted') throw new ScimError(404, null, scimNames(e.detail ?? 'The resource was deleted'));
    }
    if (e instanceof NotFoundError) throw new ScimError(404, null, e.detail ?? 'The resource was not found');
    throw e;
  }
}
