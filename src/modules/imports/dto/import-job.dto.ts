import type { ProblemDetails } from '../../../common/errors/errors.js';
import { field, resource } from '../../../http/wire/resource.js';

/**
 * The wire shapes of file imports (docs/imports.md): the job (`ImportJob`, answered by POST, GET
 * and DELETE, and listed by `GET /v4/imports`, a queried list: docs/queries.md), and the rows that
 * failed (`ArrayOfImportRowError`, also CSV).
 */

/** What a job's answer is made of: its row, and the figures worked out from it. */
export interface ImportJobRow {
  id: string;
  kind: string;
  mode: string;
  format: string;
  state: string;
  fileBytes: number;
  totalRows: number | null;
  nextRow: number;
  rowsWritten: number;
  rowsFailed: number;
  rowsWaiting: number;
  created: Date;
  started: Date | null;
  finished: Date | null;
  problem: string | null;
  /** Rows a second since it started (null before). */
  rate: number | null;
  /** Seconds left at that rate (null when unknown or done). */
  eta: number | null;
}

export const ImportJob = resource<ImportJobRow>()('ImportJob', {
  fields: {
    ID: field.string('RO', { column: 'id', query: { filter: true }, description: 'The job’s id: GET /v4/imports/{id}.' }),
    Kind: field.string('RO', { column: 'kind', query: { filter: true }, description: 'The collection the rows are written to: individuals or departments.' }),
    Mode: field.string('RO', { column: 'mode', query: { filter: true }, description: 'create, update or upsert: what each row is, as a bulk item’s Op.' }),
    Format: field.string('RO', {
      column: 'format',
      query: { filter: true },
      description: 'How the file was read: csv, xlsx, ndjson, json or xml (from its Content-Type).',
    }),
    State: field.string('RO', {
      column: 'state',
      // The list leaves out a job whose file is still being received (stored `receiving`, answered `queued`
      // by its GET): every job it answers has its stored state, so a filter on State compares exactly that.
      query: { filter: true },
      enum: ['queued', 'running', 'succeeded', 'failed', 'cancelled'],
      description:
        'queued (waiting for a replica), running, succeeded (every row read; some may have failed: RowsFailed), failed (the file could not be read on), cancelled (DELETE).',
    }),
    FileBytes: field.int('RO', { column: 'fileBytes', description: 'The size of the file as received.' }),
    RowsTotal: field.int('RO', {
      column: 'totalRows',
      nullable: true,
      description: 'The data rows of the file (the header row not counted); null until known (an XLSX file’s are counted as they are read).',
    }),
    RowsRead: field.int('RO', {
      column: 'nextRow',
      description: 'Data rows read and committed (written, failed or waiting); the next chunk starts after them.',
    }),
    RowsWritten: field.int('RO', { column: 'rowsWritten', description: 'Rows written (or unchanged: an update that changes nothing writes nothing).' }),
    RowsFailed: field.int('RO', { column: 'rowsFailed', description: 'Rows not written: GET /v4/imports/{id}/errors says why.' }),
    Created: field.date('RO', { column: 'created', query: { filter: true, sort: true }, description: 'When the file was received.' }),
    Started: field.date('RO', { column: 'started', nullable: true, description: 'When a replica first started on it.' }),
    Finished: field.date('RO', {
      column: 'finished',
      nullable: true,
      query: { filter: true, sort: true },
      description: 'When it succeeded, failed or was cancelled.',
    }),
    RowsPerSecond: field.decimal('RO', { column: 'rate', nullable: true, description: 'Rows read a second since it started (null before).' }),
    EtaSeconds: field.int('RO', { column: 'eta', nullable: true, description: 'Seconds left at that rate (null when not running or not known yet).' }),
    Problem: field.string('RO', { column: 'problem', nullable: true, description: 'Why the job failed or stopped; null otherwise.' }),
    RowsWaiting: field.int('RO', {
      column: 'rowsWaiting',
      description:
        'Rows read that wait for a record further down the file (an ExternalRefs naming an ExternalID no record had yet): tried again once the file is read, then written or failed (docs/imports.md).',
    }),
  },
});
export const ImportJobDto = ImportJob.Response;
export type ImportJobDto = InstanceType<typeof ImportJobDto>;

/** One failed row, as kept. */
export interface ImportRowErrorRow {
  line: number;
  status: number;
  externalId: string | null;
  problem: ProblemDetails;
}

const ImportProblemError = resource<{ field: string; message: string }>()('ImportProblemError', {
  fields: {
    field: field.string('RO', { description: 'The field, as the single write names it (a column of the file).' }),
    message: field.string('RO'),
  },
});

const ImportProblem = resource<ProblemDetails>()('ImportProblem', {
  fields: {
    type: field.string('RO', { description: 'The problem type, urn:pms:problem:<code>.' }),
    title: field.string('RO'),
    status: field.int('RO'),
    detail: field.string('RO', { nullable: true }),
    errors: field.array('RO', { nullable: true, nested: () => ImportProblemError.Response, description: 'Every failing field (400).' }),
  },
});

export const ImportRowError = resource<ImportRowErrorRow>()('ImportRowError', {
  fields: {
    Line: field.int('RO', {
      column: 'line',
      description:
        'Where the row is: the file’s line in CSV and NDJSON (the header is line 1 of a CSV), the sheet’s row number in XLSX, the item’s position from 1 in XML and JSON.',
    }),
    Status: field.int('RO', { column: 'status', description: 'The status the single write would have answered (400, 403, 404, 409…).' }),
    ExternalID: field.string('RO', { column: 'externalId', nullable: true, description: 'The row’s ExternalID, when it gives one.' }),
    Problem: field.object('RO', { nested: () => ImportProblem.Response, from: () => null, description: 'Why the row was not written (RFC 9457).' }),
  },
});
export const ImportRowErrorDto = ImportRowError.Response;

/** A failed row's answer. */
export function rowErrorToWire(r: ImportRowErrorRow): object {
  const out = ImportRowError.toWire(r) as Record<string, unknown>;
  out.Problem = ImportProblem.toWire({
    ...r.problem,
    detail: r.problem.detail ?? null,
    errors: r.problem.errors?.map((e) => ImportProblemError.toWire(e)) ?? null,
  } as never);
  return out;
}
