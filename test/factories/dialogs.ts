import { bearer, TestApp } from '../e2e/harness.js';

export type Json = { ID: string } & Record<string, unknown>;

async function postJson(t: TestApp, path: string, token: string, body: object): Promise<Json> {
  const res = await t.http().post(`/v4/${path}`).set('Authorization', bearer(token)).send(body);
  if (res.status !== 200) throw new Error(`POST ${path} failed: ${res.status} ${res.text}`);
  return res.body as Json;
}

/** A dialog through the API: an individual dialog about `ancestorId` led by `leaderId` unless said otherwise. */
export function createDialog(
  t: TestApp,
  token: string,
  body: { AncestorID: string; LeaderID: string; PeriodID: number } & Record<string, unknown>,
): Promise<Json> {
  return postJson(t, 'dialogs', token, { Kind: 'individual', ScheduledDate: '2026-03-01T10:00:00Z', ...body });
}

/** A follow-up task through the API: about and assigned to `AssignedToID` unless said otherwise. */
export function createTask(t: TestApp, token: string, body: { AssignedToID: string } & Record<string, unknown>): Promise<Json> {
  return postJson(t, 'tasks', token, { Kind: 'individual', AncestorID: body.AssignedToID, Name: 'Follow up', ...body });
}

/** A basic role through the API. */
export function createBasicRole(t: TestApp, token: string, individualId: string, name = 'Role'): Promise<Json> {
  return postJson(t, 'basicroles', token, { IndividualID: individualId, Name: name });
}

/** An assessment through the API. */
export function createAssessment(
  t: TestApp,
  token: string,
  body: { Kind: string; SubjectID: string; PeriodID: number } & Record<string, unknown>,
): Promise<Json> {
  return postJson(t, 'assessments', token, body);
}
