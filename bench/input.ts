/**
 * The input path scales linearly (docs/operations.md, "Input limits"): every step a request body
 * goes through before a handler sees it — the raw limit scan, parsing, the declared-field pass,
 * class-transformer and class-validator — timed on bodies of 10,000, 40,000 and 160,000 keys (and
 * XML elements), with the limits lifted so each step does its whole work. The time per key at
 * 160,000 must stay within 2× of the time per key at 40,000 (a quadratic step makes it 4×, n log n
 * 1.13×); the process exits 1 otherwise. The growth from 10,000 keys is shown, not checked: a body
 * of 10,000 keys fits the processor's caches and one of 160,000 does not, so on a slow machine
 * that ratio alone read 1.4–3.2 run to run for a linear step (2026-11-30), against 16 for a
 * quadratic one. For the record it also times class-transformer alone, the step that was
 * quadratic, on 10,000 and 20,000 keys.
 *
 *   npm run bench:input
 */
import 'reflect-metadata';
import { plainToInstance } from 'class-transformer';
import { checkJsonBody, checkXmlBody, type BodyLimits } from '../src/http/wire/body-limits.js';
import { WireCodec } from '../src/http/wire/codec.js';
import { AppValidationPipe } from '../src/http/pipeline/app-validation.pipe.js';
import { CreateAssessmentDto } from '../src/modules/assessments/dto/assessment.dto.js';
import { TokenRequestDto } from '../src/modules/auth/dto/token.dto.js';

const UNLIMITED: BodyLimits = { depth: 64, membersPerObject: Infinity, totalMembers: Infinity, stringBytes: Infinity };
const SIZES = [10_000, 40_000, 160_000];
/** The bound on the cost per key at 160,000 keys ÷ the cost per key at 40,000. */
const MAX_GROWTH = 2;

const pipe = new AppValidationPipe();
const codec = new WireCodec('urn:pms:v4');

/** A login body with `n` unknown keys beside the real ones: `k0`, `k1`, … or, as the probe sent them, `0`, `1`, … */
function jsonLogin(n: number, numeric = false): string {
  const o: Record<string, unknown> = { UserName: 'admin', Password: 'secret-password' };
  for (let i = 0; i < n; i++) o[numeric ? String(i) : `k${i.toString(36)}`] = 1;
  return JSON.stringify(o);
}

/** An assessment with 10 ratings, each carrying n/10 unknown keys (the keys are in nested objects). */
function jsonNested(n: number): string {
  const rating = (r: number) => {
    const o: Record<string, unknown> = { ItemKind: 'general', ItemID: null, Rating: (r % 5) + 1 };
    for (let i = 0; i < n / 10; i++) o[`k${i.toString(36)}`] = 1;
    return o;
  };
  return JSON.stringify({
    Kind: 'self',
    SubjectID: '3f1a1d52-8c1e-4b8e-9f57-6f3a6c1d2e01',
    PeriodID: 1,
    Ratings: Array.from({ length: 10 }, (_, r) => rating(r)),
  });
}

function xmlLogin(n: number): string {
  const parts = ['<TokenRequest xmlns="urn:pms:v4"><UserName>admin</UserName><Password>secret-password</Password>'];
  for (let i = 0; i < n; i++) parts.push(`<k${i.toString(36)}>1</k${i.toString(36)}>`);
  parts.push('</TokenRequest>');
  return parts.join('');
}

const body = (metatype: unknown) => ({ type: 'body' as const, metatype: metatype as never, data: '' });

interface Case {
  name: string;
  make: (n: number) => string;
  run: (text: string) => Promise<unknown>;
}

const CASES: Case[] = [
  {
    name: 'JSON login: scan + parse + validate',
    make: jsonLogin,
    run: async (text) => {
      if (checkJsonBody(Buffer.from(text), UNLIMITED)) throw new Error('refused');
      return pipe.transform(JSON.parse(text), body(TokenRequestDto));
    },
  },
  {
    name: 'JSON login, numeric keys',
    make: (n) => jsonLogin(n, true),
    run: async (text) => {
      if (checkJsonBody(Buffer.from(text), UNLIMITED)) throw new Error('refused');
      return pipe.transform(JSON.parse(text), body(TokenRequestDto));
    },
  },
  {
    name: 'JSON assessment, keys in nested ratings',
    make: jsonNested,
    run: async (text) => {
      if (checkJsonBody(Buffer.from(text), UNLIMITED)) throw new Error('refused');
      return pipe.transform(JSON.parse(text), body(CreateAssessmentDto)).catch(() => undefined);
    },
  },
  {
    name: 'XML login: scan + parse + validate',
    make: xmlLogin,
    run: async (text) => {
      if (checkXmlBody(text, UNLIMITED)) throw new Error('refused');
      return pipe.transform(await codec.decodeXml(text), body(TokenRequestDto));
    },
  },
];

/**
 * The CPU time of the fastest of `reps` runs (this process's user + system time, so other
 * processes taking the core add nothing), each after a full collection when the process runs with
 * `--expose-gc` (the npm script does): the garbage of the previous run only ever adds time.
 */
async function timeMs(fn: () => Promise<unknown>, reps: number): Promise<number> {
  const times: number[] = [];
  const gc = (globalThis as { gc?: () => void }).gc;
  for (let i = 0; i < reps; i++) {
    gc?.();
    const t0 = process.cpuUsage();
    await fn();
    const used = process.cpuUsage(t0);
    times.push((used.user + used.system) / 1000);
  }
  return Math.min(...times);
}

async function main(): Promise<void> {
  let failed = false;
  const rows: string[] = [
    '| step | 10,000 keys | 40,000 keys | 160,000 keys | per key at 160k ÷ at 10k | per key at 160k ÷ at 40k (checked) |',
    '|---|---:|---:|---:|---:|---:|',
  ];
  for (const c of CASES) {
    const ms: number[] = [];
    for (const n of SIZES) {
      const text = c.make(n);
      await c.run(text); // warm-up
      ms.push(await timeMs(() => c.run(text), 7));
    }
    const perKey = ms.map((t, k) => t / SIZES[k]);
    const fromSmall = perKey[2] / perKey[0];
    const growth = perKey[2] / perKey[1];
    if (growth > MAX_GROWTH) failed = true;
    rows.push(
      `| ${c.name} | ${ms[0].toFixed(1)} ms | ${ms[1].toFixed(1)} ms | ${ms[2].toFixed(1)} ms | ${fromSmall.toFixed(2)} | ${growth.toFixed(2)}${growth > MAX_GROWTH ? ' ✗' : ''} |`,
    );
  }
  // The step the declared-field pass keeps unknown keys away from.
  const ct = [10_000, 20_000].map((n) => {
    const plain = JSON.parse(jsonLogin(n, true)) as object;
    const t0 = process.hrtime.bigint();
    plainToInstance(TokenRequestDto, plain);
    return Number(process.hrtime.bigint() - t0) / 1e6;
  });
  console.log(rows.join('\n'));
  console.log(
    `\nclass-transformer alone (what ran before the declared-field pass): 10,000 keys ${ct[0].toFixed(0)} ms, 20,000 keys ${ct[1].toFixed(0)} ms ` +
      `(${(ct[1] / ct[0]).toFixed(1)}× for 2× the keys)`,
  );
  console.log(
    failed
      ? `\nFAIL: a step grows faster than linearly (its cost per key at 160,000 keys more than ${MAX_GROWTH}× that at 40,000)`
      : '\nlinear: every step within the bound',
  );
  process.exit(failed ? 1 : 0);
}

void main();
