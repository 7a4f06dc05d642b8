import { execFile, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/**
 * The XML answers of one test file, validated against the app's XML Schema (/docs/pms-v4.xsd and
 * the schemas it imports, docs/http-and-xml.md "XML Schema") with `xmllint --schema` when the file
 * closes its app: each answer is written to a temp folder as it leaves, and one xmllint call
 * validates up to BATCH of them, so a file with thousands of answers costs a few calls.
 *
 * xmllint (Debian's libxml2-utils) is not needed by `npm test` on a bare machine: without it the
 * check is left out with one notice per run; REQUIRE_XMLLINT=1 (.ci/run) makes its absence a
 * failure. XSD_TALLY=<file> appends the number of answers each file validated to that file.
 */
const BATCH = 1000;

interface Kept {
  file: string;
  label: string;
  /** The operation the answer came from, when a route took the request. */
  answer?: { method: string; route: string; status: number; contentType: string };
}

/** Whether xmllint runs here (once per test file). */
function xmllintFound(): boolean {
  const r = spawnSync('xmllint', ['--version'], { stdio: 'ignore' });
  return !r.error;
}

/** One notice per test run (the workers of one run share their parent). */
function noticeOnce(text: string): void {
  const marker = join(tmpdir(), `pms-xmllint-notice-${process.ppid}`);
  if (existsSync(marker)) return;
  writeFileSync(marker, '');
  process.stderr.write(`${text}\n`);
}

/** `file:12: element X: Schemas validity error : …` lines of xmllint, by file. */
function errorsByFile(stderr: string, files: Set<string>): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const line of stderr.split('\n')) {
    const file = line.slice(0, line.indexOf(':'));
    if (!files.has(file) || / validates$/.test(line)) continue;
    if (!out.has(file)) out.set(file, []);
    out.get(file)!.push(line.slice(file.length + 1));
  }
  return out;
}

function xmllint(args: string[]): Promise<{ code: number; stderr: string }> {
  return new Promise((resolve, reject) => {
    execFile('xmllint', args, { maxBuffer: 256 * 1024 * 1024 }, (error, _stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      if (error && typeof error.code !== 'number') reject(error);
      else resolve({ code, stderr });
    });
  });
}

/** The local name of a document's root element. */
function rootName(xml: string): string | undefined {
  return /^(?:<\?[^>]*\?>)?\s*(?:<!--[\s\S]*?-->\s*)*<(?:[A-Za-z_][\w.-]*:)?([A-Za-z_][\w.-]*)[\s/>]/.exec(xml)?.[1];
}

export class XmlAnswers {
  private dir: string | undefined;
  private readonly kept: Kept[] = [];

  /** Keeps one XML answer (an empty body, such as a 304's, has nothing to validate). */
  record(body: Buffer, label: string, answer?: Kept['answer']): void {
    if (body.length === 0) return;
    this.dir ??= mkdtempSync(join(tmpdir(), 'pms-xml-answers-'));
    const file = join(this.dir, `${this.kept.length}.xml`);
    writeFileSync(file, body);
    this.kept.push({ file, label, answer });
  }

  get count(): number {
    return this.kept.length;
  }

  /**
   * Validates every kept answer against the schemas (file name → text, the main one first) and
   * checks its root against `rootsOf` (the roots the OpenAPI document names for the answer); one
   * line per answer that fails. Removes the kept files.
   */
  async violations(schemas: () => Promise<Record<string, string>>, rootsOf: (answer: NonNullable<Kept['answer']>) => string[] | undefined): Promise<string[]> {
    if (!this.dir) return [];
    try {
      if (!xmllintFound()) {
        if (process.env.REQUIRE_XMLLINT === '1')
          return ['xmllint is not installed (Debian: apt-get install libxml2-utils), and REQUIRE_XMLLINT=1 asks for the XML Schema check'];
        noticeOnce(
          'Note: xmllint is not installed, so the e2e tests do not validate XML answers against /docs/pms-v4.xsd (Debian: apt-get install libxml2-utils).',
        );
        return [];
      }
      const files = await schemas();
      const names = Object.keys(files);
      // The schemas import each other by relative schemaLocation: side by side in one folder.
      const schemaDir = join(this.dir, 'schema');
      mkdirSync(schemaDir);
      for (const [name, text] of Object.entries(files)) writeFileSync(join(schemaDir, name), text);
      const out: string[] = [];
      for (let i = 0; i < this.kept.length; i += BATCH) {
        const batch = this.kept.slice(i, i + BATCH);
        const { code, stderr } = await xmllint(['--noout', '--nonet', '--schema', join(schemaDir, names[0]), ...batch.map((k) => k.file)]);
        if (code !== 0 && code !== 3 && code !== 4) out.push(`xmllint failed (exit ${code}): ${stderr.split('\n').slice(0, 5).join(' ')}`);
        const errors = errorsByFile(stderr, new Set(batch.map((k) => k.file)));
        for (const k of batch) {
          const lines = errors.get(k.file);
          if (lines?.length) out.push(`${k.label}: ${lines.slice(0, 3).join(' | ')}`);
        }
      }
      for (const k of this.kept) {
        const expected = k.answer && rootsOf(k.answer);
        if (!expected) continue;
        const root = rootName(readFileSync(k.file, 'utf8'));
        if (!root || !expected.includes(root)) out.push(`${k.label}: the root is <${root}>, the OpenAPI document says <${expected.join('> or <')}>`);
      }
      if (process.env.XSD_TALLY) appendFileSync(process.env.XSD_TALLY, `${this.kept.length}\n`);
      return out;
    } finally {
      rmSync(this.dir, { recursive: true, force: true });
      this.dir = undefined;
    }
  }
}
