import { bearer, TestApp } from '../e2e/harness.js';

/**
 * A Permission record that denies `principalId` (a login account or security group) Read on the
 * record `rowId`: the record is then not there for them (404 by id, left out of lists). Written
 * through the API by the holder of `adminToken`.
 */
export async function denyRead(t: TestApp, adminToken: string, rowId: string, principalId: string): Promise<void> {
  await t
    .http()
    .post('/v4/permissions')
    .set('Authorization', bearer(adminToken))
    .send({ RowID: rowId, PrincipalID: principalId, ChildType: null, CreateState: 0, ReadState: 2, UpdateState: 0, DeleteState: 0, DelegateState: 0 })
    .expect(200);
}
