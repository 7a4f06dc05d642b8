// Jest's global teardown: removes the run's folder of kept documents (test/documents-setup.mjs) and,
// on MySQL/MariaDB, the run's migrated template database (test/e2e/migrated-template.ts).
import { rmSync } from 'node:fs';
import { URL } from 'node:url';
import { templateDatabase } from './template-name.mjs';

export default async function documentsTeardown() {
  const template = templateDatabase(process.env.DATABASE_URL, process.env.PMS_E2E_DOCUMENTS);
  if (template) {
    const { default: mysql } = await import('mysql2/promise');
    const u = new URL(process.env.DATABASE_URL);
    const c = await mysql.createConnection({
      host: u.hostname,
      port: Number(u.port || 3306),
      user: decodeURIComponent(u.username),
      password: decodeURIComponent(u.password),
    });
    try {
      await c.query(`DROP DATABASE IF EXISTS \`${template}\``);
    } finally {
      await c.end();
    }
  }
  if (process.env.PMS_E2E_DOCUMENTS) rmSync(process.env.PMS_E2E_DOCUMENTS, { recursive: true, force: true });
}
