/**
 * What an integrator writes with a client generated from /docs/openapi.json (openapi-typescript
 * types + openapi-fetch): log in, create a department, an individual, a period and a goal, list
 * the goals, ask a list a question (filter, sort, fields and cursor paging; an unknown field's 400),
 * read a problem on a 404. test/e2e/generated-client.e2e-spec.ts generates `./api.js`
 * from the live document, compiles this file with `tsc --strict` (0 errors) and runs it.
 *
 * Written without casts or non-null assertions: it compiles only if the document types every
 * answer and every error precisely (a nullable `ID`, or an untyped error body, would not).
 */
import createClient from 'openapi-fetch';
import type { components, paths } from './api.js';

type Problem = components['schemas']['Problem'];

function fail(message: string): never {
  throw new Error(message);
}

function describe(problem: Problem): string {
  const fields = (problem.errors ?? []).map((e) => `${e.field}: ${e.message}`).join('; ');
  return `${problem.status} ${problem.type} ${problem.detail ?? ''} ${fields}`;
}

const [baseUrl, userName, password] = process.argv.slice(2);
// The queried lists also answer CSV, XLSX and NDJSON (docs/exports.md): the client reads JSON, so it names the media types it types.
const client = createClient<paths, 'application/json' | 'application/problem+json'>({ baseUrl });

// 1. Log in. The error of a failed call is a Problem; after `if (error)` the data is defined.
const login = await client.POST('/v4/auth/token', { body: { UserName: userName, Password: password } });
if (login.error) fail(`login: ${describe(login.error)}`);
const token: string = login.data.access_token;
const expiresIn: number = login.data.expires_in;
client.use({
  onRequest({ request }) {
    request.headers.set('Authorization', `Bearer ${token}`);
    return request;
  },
});

// 2. A department at the top of the tree.
const department = await client.POST('/v4/departments', { body: { Name: 'Generated-client team', Description: null, RowType: 56, Rank: 1 } });
if (department.error) fail(`department: ${describe(department.error)}`);
const departmentId: string = department.data.ID;
const parentId: string | null = department.data.ParentID;

// 3. An individual in it, reporting to nobody.
const individual = await client.POST('/v4/individuals', {
  body: {
    FirstName: 'Gene',
    LastName: 'Rated',
    UserName: `gene.rated.${Date.now()}`,
    Email: 'gene@example.com',
    UserEmail: 'gene@example.com',
    PrimaryOrganizationID: departmentId,
    PrimaryTitle: 'Integrator',
    PrimaryReportsTo: null,
  },
});
if (individual.error) fail(`individual: ${describe(individual.error)}`);
const individualId: string = individual.data.ID;
const fullName: string = individual.data.FullName;

// 4. A period and a goal of the individual in it.
const period = await client.POST('/v4/periods', {
  body: { Name: 'Client FY', StartDate: '2027-01-01T00:00:00.000+00:00', EndDate: '2027-12-31T23:59:59.999+00:00' },
});
if (period.error) fail(`period: ${describe(period.error)}`);
const periodId: number = period.data.ID;

const day = (d: string) => `${d}T00:00:00.000+00:00`;
const goal = await client.POST('/v4/goals', {
  body: {
    IndividualID: individualId,
    PeriodID: periodId,
    Name: 'Ship the integration',
    Why: 'Customers asked for it',
    Comment: '',
    Completed: false,
    DueDate: day('2027-06-30'),
    Measure1: 'Generate the client',
    Measure1Completed: true,
    Measure1StartDate: day('2027-01-01'),
    Measure1EndDate: day('2027-01-31'),
    Measure2: 'Compile it',
    Measure2StartDate: day('2027-02-01'),
    Measure2EndDate: day('2027-02-28'),
    Measure3: '',
    Measure3Completed: false,
    Measure3StartDate: day('2027-03-01'),
    Measure4: '',
    Measure4Completed: false,
    Measure4StartDate: day('2027-03-01'),
    Measure4EndDate: day('2027-03-31'),
    Measure5: '',
    Measure5Completed: false,
    Measure5StartDate: day('2027-03-01'),
    Measure5EndDate: day('2027-03-31'),
  },
});
if (goal.error) fail(`goal: ${describe(goal.error)}`);
const goalId: number = goal.data.ID;
const measuresCompleted: number = goal.data.MeasuresCompleted;

// 5. List the individual's goals of that period (a page: X-Total-Count).
const goals = await client.GET('/v4/individuals/{id}/goals', { params: { path: { id: individualId }, query: { period: periodId, limit: 10 } } });
if (goals.error) fail(`goals: ${describe(goals.error)}`);
// A list answers its records, also with `updatedSince` (changes with tombstones are /v4/sync/{kind}'s): no narrowing.
const names: string[] = goals.data.map((g) => g.Name);
const total = Number(goals.response.headers.get('X-Total-Count'));

// 6. A list that answers a question (docs/queries.md): the people whose LastName starts with
// "Rated" (Gene and two more), sorted by FirstName, only ID and FirstName, two a page by cursor (Link: rel="next").
const stamp = Date.now();
for (const first of ['Zed', 'Amy']) {
  const more = await client.POST('/v4/individuals', {
    body: {
      FirstName: first,
      LastName: 'Rated-too',
      UserName: `${first.toLowerCase()}.rated.${stamp}`,
      Email: 'more@example.com',
      UserEmail: 'more@example.com',
      PrimaryOrganizationID: departmentId,
      PrimaryTitle: 'Integrator',
      PrimaryReportsTo: null,
    },
  });
  if (more.error) fail(`individual ${first}: ${describe(more.error)}`);
}
const query = { filter: 'LastName sw "Rated"', sort: 'FirstName', fields: 'ID,FirstName', limit: 2 };
const pages: string[][] = [];
const members: string[][] = [];
let cursor: string | null = 'start';
while (cursor !== null && pages.length < 5) {
  const page = await client.GET('/v4/individuals', { params: { query: { ...query, cursor } } });
  if (page.error) fail(`people by cursor: ${describe(page.error)}`);
  pages.push(page.data.map((p) => p.FirstName));
  members.push(...page.data.map((p) => Object.keys(p)));
  const next = /<([^>]+)>;\s*rel="next"/.exec(page.response.headers.get('Link') ?? '');
  cursor = next ? new URL(next[1], baseUrl).searchParams.get('cursor') : null;
}
const badFilter = await client.GET('/v4/individuals', { params: { query: { filter: 'Salary gt 10' } } });
if (!badFilter.error) fail('an unknown filter field answered 200');
const filterProblem: Problem = badFilter.error;

// 7. A goal that does not exist: a typed 404 problem.
const missing = await client.GET('/v4/goals/{id}', { params: { path: { id: goalId + 1000 } } });
if (!missing.error) fail('reading a missing goal answered 200');
const problem: Problem = missing.error;

console.log(
  JSON.stringify({
    expiresIn,
    departmentId,
    parentId,
    individualId,
    fullName,
    periodId,
    goalId,
    measuresCompleted,
    names,
    total,
    pages,
    members,
    badFilter: { httpStatus: badFilter.response.status, type: filterProblem.type, detail: filterProblem.detail },
    missing: { httpStatus: missing.response.status, status: problem.status, type: problem.type, detail: problem.detail },
  }),
);
