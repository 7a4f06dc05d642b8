// Jest's global setup (jest.config.js): a folder for the run in which the e2e harness keeps the
// OpenAPI document and XML Schemas its apps answer (test/e2e/harness.ts, documentsOf). The
// workers start after this and inherit the variable.
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export default function documentsSetup() {
  process.env.PMS_E2E_DOCUMENTS = mkdtempSync(join(tmpdir(), 'pms-e2e-documents-'));
}
