import { Entity, Index } from 'typeorm';
import { GuidTenantEntity, IntTenantEntity } from './base.entity.js';
import { DateCol, DialectTable, GuidRef, IntCol, LongTextCol, StrCol, TextCol } from '../columns.js';

/**
 * A file import of a site (docs/imports.md): the file, stored in `import_file_parts`, is written
 * through a collection's bulk writes, chunk by chunk, by whichever replica holds the job's lease.
 * Every column is the import feature's own bookkeeping, written with plain statements
 * (src/modules/imports/imports.statements.ts) that add nothing to the audit trail: the records the
 * rows write are audited as their single writes are.
 */
@Entity('import_jobs')
@Index('ix_import_jobs_site_created', ['siteId', 'created'])
// One queued or running import per site: `active` is 1 while it is, NULL after (NULLs never clash).
@Index('ux_import_jobs_site_active', ['siteId', 'active'], { unique: true })
// The retention sweep's look for ended jobs, oldest first (migration 1732000003400).
@Index('ix_import_jobs_site_finished', ['siteId', 'finished'])
// The list's filters, GET /v4/imports (docs/queries.md; migration 1732000003410).
@Index('ix_import_jobs_site_state', ['siteId', 'state'])
@Index('ix_import_jobs_site_kind', ['siteId', 'kind'])
@Index('ix_import_jobs_site_mode', ['siteId', 'mode'])
@Index('ix_import_jobs_site_format', ['siteId', 'format'])
export class ImportJobEntity extends GuidTenantEntity {
  /** The collection the rows are written to: `individuals`, `departments`. */
  @StrCol('kind', 40, { nullable: false })
  kind: string;

  /** `create`, `update` or `upsert`: the Op of every row. */
  @StrCol('mode', 10, { nullable: false })
  mode: string;

  /** `csv`, `xlsx`, `ndjson`, `json` or `xml`. */
  @StrCol('format', 10, { nullable: false })
  format: string;

  /** `queued`, `running`, `succeeded`, `failed`, `cancelled`. */
  @StrCol('state', 12, { nullable: false })
  state: string;

  /** 1 while queued or running, else NULL (ux_import_jobs_site_active). */
  @IntCol('active', { nullable: true })
  active: number | null;

  @IntCol('file_bytes', { default: 0 })
  fileBytes: number;

  @IntCol('parts', { default: 0 })
  parts: number;

  /** Data rows in the file (the header row not counted), counted when it was received; null when not known yet (XLSX). */
  @IntCol('total_rows', { nullable: true })
  totalRows: number | null;

  /** Data rows read and committed: where the next chunk starts. Moved in the chunk's own transaction. */
  @IntCol('next_row', { default: 0 })
  nextRow: number;

  @IntCol('rows_written', { default: 0 })
  rowsWritten: number;

  @IntCol('rows_failed', { default: 0 })
  rowsFailed: number;

  /** Who posted the job, as the rows are written (a JSON snapshot of the caller). */
  @TextCol('caller', { nullable: false })
  caller: string;

  @DateCol('started')
  started: Date | null;

  @DateCol('finished')
  finished: Date | null;

  /** Why the job failed or stopped, null otherwise. */
  @StrCol('problem', 500)
  problem: string | null;

  /** The replica processing the job, and until when its claim holds. */
  @StrCol('lease_owner', 64)
  leaseOwner: string | null;

  @DateCol('lease_until')
  leaseUntil: Date | null;

  /** Rows waiting for a record further down the file (import_waiting_rows): read, neither written nor failed yet. */
  @IntCol('rows_waiting', { default: 0 })
  rowsWaiting: number;

  /** 0 while the file is read; then the retry pass of the waiting rows under way, from 1. */
  @IntCol('retry_pass', { default: 0 })
  retryPass: number;

  /** Rows the retry pass under way has written (a pass that writes none is the last). */
  @IntCol('retry_written', { default: 0 })
  retryWritten: number;

  /** 1 when no pass can write the rows still waiting: they become errors. */
  @IntCol('retry_final', { default: 0 })
  retryFinal: number;

  /** Claims of the job since a chunk of it last committed (ImportProcessor: it fails past MAX_IDLE_CLAIMS). */
  @IntCol('claims_idle', { default: 0 })
  claimsIdle: number;
}

/** One part of an import's file, in order (base64 of up to IMPORT_PART_BYTES bytes). */
export abstract class ImportFilePartColumns extends IntTenantEntity {
  @GuidRef(() => ImportJobEntity, 'fk_import_file_parts_job', 'import_id')
  importId: string;

  @IntCol('part_no')
  partNo: number;

  abstract data: string;
}

const IMPORT_FILE_PARTS = DialectTable('import_file_parts', [['ux_import_file_parts_part', ['siteId', 'importId', 'partNo'], { unique: true }]]);

@IMPORT_FILE_PARTS
export class ImportFilePartEntity extends ImportFilePartColumns {
  @LongTextCol('data', true)
  data: string;
}

@IMPORT_FILE_PARTS
export class ImportFilePartMysqlEntity extends ImportFilePartColumns {
  @LongTextCol('data', false)
  data: string;
}

/** A row of an import's file that was not written: its line (or sheet row) and its problem document. */
@Entity('import_errors')
@Index('ix_import_errors_job', ['siteId', 'importId', 'line'])
export class ImportErrorEntity extends IntTenantEntity {
  @GuidRef(() => ImportJobEntity, 'fk_import_errors_job', 'import_id')
  importId: string;

  /** The file's line (the header is line 1), or the sheet's row number. */
  @IntCol('line')
  line: number;

  @IntCol('status')
  status: number;

  /** The row's ExternalID, when it has one. */
  @StrCol('external_id', 255)
  externalId: string | null;

  /** The problem document, as JSON. */
  @TextCol('problem', { nullable: false })
  problem: string;
}

/**
 * A row of an import's file that waits for a record further down the file (docs/imports.md,
 * "References to later rows"): its ExternalRefs named an ExternalID no record had when its chunk
 * was written. Kept with its item until a retry pass writes it, or the job ends and it becomes an
 * error with its last problem.
 */
export abstract class ImportWaitingRowColumns extends IntTenantEntity {
  @GuidRef(() => ImportJobEntity, 'fk_import_waiting_rows_job', 'import_id')
  importId: string;

  /** The row's position among the file's data rows, from 0. */
  @IntCol('row_no')
  rowNo: number;

  /** The file's line (or sheet row, or item position), as an error names it. */
  @IntCol('line')
  line: number;

  /** The retry pass that tries it next (import_jobs.retry_pass). */
  @IntCol('pass')
  pass: number;

  @StrCol('external_id', 255)
  externalId: string | null;

  /** Its last problem document, as JSON: the row's error if no pass writes it. */
  @TextCol('problem', { nullable: false })
  problem: string;

  /** The bulk item the row was read as (Op, Record, ExternalRefs), as JSON. */
  abstract item: string;
}

const IMPORT_WAITING_ROWS = DialectTable('import_waiting_rows', [['ux_import_waiting_rows_pass', ['siteId', 'importId', 'pass', 'rowNo'], { unique: true }]]);

@IMPORT_WAITING_ROWS
export class ImportWaitingRowEntity extends ImportWaitingRowColumns {
  @LongTextCol('item', true)
  item: string;
}

@IMPORT_WAITING_ROWS
export class ImportWaitingRowMysqlEntity extends ImportWaitingRowColumns {
  @LongTextCol('item', false)
  item: string;
}
