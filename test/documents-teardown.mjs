// Jest's global teardown: removes the run's folder of kept documents (test/documents-setup.mjs).
import { rmSync } from 'node:fs';

export default function documentsTeardown() {
  if (process.env.PMS_E2E_DOCUMENTS) rmSync(process.env.PMS_E2E_DOCUMENTS, { recursive: true, force: true });
}
