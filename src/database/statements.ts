/**
 * Typed, named statements (docs/architecture.md, "What a module may call"): every SQL statement
 * the service writes by hand is declared once, with a name, and typed by the row it answers. The
 * data path runs only statements (TenantDb.sql, sqlAtCommit, reader, pollRead, housekeepingWrite,
 * housekeeping), never text, and `npm run sql:snapshot` writes every declaration, with its SQL, to
 * `src/database/statements.sql`, the file a review reads (a unit test fails when it no longer
 * matches the declarations).
 *
 * - `sql<Row>(name, text)`: a fixed statement. On the read path (TenantDb.reader) it is prepared
 *   once per pooled connection and executed by its id from then on (raw-reader.ts).
 * - `family(name, build, samples).rows<Row>()`: a statement whose text varies with its arguments —
 *   an `IN` list's length, optional conditions, a dialect — declared with samples of those
 *   arguments, which the snapshot writes out. `.of(...args)` answers the statement of those
 *   arguments; a variant asked for again is the same object (kept per family, for arguments that
 *   are plain values), so a repeated call builds no text. A variant is run unprepared (MySQL keeps
 *   prepared statements per connection, up to a server-wide limit) unless `prepared` says its text
 *   is one of a few (one id instead of a list).
 * - `familyWithParams(...)`: the same for a statement whose text and parameters are written
 *   together (the dashboards' aggregate statements, whose parameters follow the text's order).
 */

/** Marks what `sql` and `family` made: a statement cannot be written as an object literal elsewhere. */
declare const declared: unique symbol;

/** A statement to run, typed by the row it answers (`R`, for the type checker only). */
export interface Statement<R = Record<string, unknown>> {
  readonly [declared]: true;
  /** Unique across the service, `<area>.<what>`; the snapshot lists statements by it. */
  readonly name: string;
  readonly text: string;
  /** Prepared once per connection on the read path: a fixed text (false for a text that varies). */
  readonly prepare: boolean;
  /** Whether the text is a SELECT: anything else may change rows a transaction keeps as "before" states. */
  readonly select: boolean;
  /** Never set: carries the row type. */
  readonly row?: R;
}

/** A statement with the parameters written with it (familyWithParams). */
export interface BoundStatement<R> {
  readonly statement: Statement<R>;
  readonly params: unknown[];
}

/** What the snapshot knows of one declaration. */
export interface Declaration {
  readonly kind: 'statement' | 'family';
  readonly name: string;
  /** `src/…/x.ts`: the file that declares it. */
  readonly file: string;
  /** The statement's text, or each sample's arguments (as written) and text. */
  readonly variants: readonly { readonly args?: string; readonly text: string }[];
}

const declarations: (() => Declaration)[] = [];
const names = new Set<string>();

/** Every statement declared by the modules loaded so far (the snapshot's input). */
export function declaredStatements(): Declaration[] {
  return declarations.map((d) => d());
}

function claim(name: string): string {
  if (!/^[a-z][a-z0-9-]*(?:\.[a-z0-9][a-z0-9-]*)+$/.test(name)) throw new Error(`statement name ${name}: write it as <area>.<what>, in lower case`);
  if (names.has(name)) throw new Error(`statement ${name} is declared twice`);
  names.add(name);
  return name;
}

/** The file of the declaration that called `sql` or `family`, as `src/…/x.ts` (compiled or not). */
function declaringFile(): string {
  const stack = new Error().stack ?? '';
  for (const line of stack.split('\n').slice(1)) {
    const path = /(?:file:\/\/)?(\/[^\s:()]+\.[cm]?[jt]s)/.exec(line)?.[1];
    if (!path || /\/database\/statements\.[jt]s$/.test(path)) continue;
    const at = path.lastIndexOf('/src/');
    return at < 0 ? path : path.slice(at + 1).replace(/\.js$/, '.ts');
  }
  return '(unknown)';
}

function statement<R>(name: string, text: string, prepare: boolean): Statement<R> {
  return Object.freeze({ name, text, prepare, select: /^\s*SELECT/i.test(text) }) as unknown as Statement<R>;
}

/** A fixed statement: `export const X = sql<{ id: string }>('area.what', 'SELECT id FROM … WHERE site_id = ?')`. */
export function sql<R = Record<string, unknown>>(name: string, text: string): Statement<R> {
  const file = declaringFile();
  const made = statement<R>(claim(name), text, true);
  declarations.push(() => ({ kind: 'statement', name, file, variants: [{ text }] }));
  return made;
}

/** How many variants a family keeps; beyond that a variant is built on each call. */
const KEPT_VARIANTS = 512;

type Plain = string | number | boolean | null | undefined;
const isPlain = (v: unknown): v is Plain => v === null || (typeof v !== 'object' && typeof v !== 'function');

/** A statement whose text varies with its arguments (see the file's comment). */
export class Family<A extends unknown[], R = Record<string, unknown>> {
  /** The variants built so far, by their arguments (a tree of Maps, one level per argument). */
  private readonly kept = new Map<Plain, unknown>();
  private count = 0;

  constructor(
    readonly name: string,
    private readonly build: (...args: A) => string,
    private readonly prepared: ((...args: A) => boolean) | undefined,
  ) {}

  /** The statement of these arguments. */
  of(...args: A): Statement<R> {
    let level: Map<Plain, unknown> = this.kept;
    const last = args.length - 1;
    for (let i = 0; i < last; i++) {
      const arg = args[i];
      if (!isPlain(arg)) return this.make(args);
      let next = level.get(arg) as Map<Plain, unknown> | undefined;
      if (!next) {
        if (this.count >= KEPT_VARIANTS) return this.make(args);
        level.set(arg, (next = new Map()));
      }
      level = next;
    }
    const key = last < 0 ? undefined : args[last];
    if (!isPlain(key)) return this.make(args);
    let made = level.get(key) as Statement<R> | undefined;
    if (!made) {
      made = this.make(args);
      if (this.count < KEPT_VARIANTS) {
        level.set(key, made);
        this.count++;
      }
    }
    return made;
  }

  /** Types the rows of the family's statements: `family(…).rows<Row>()`. */
  rows<T>(): Family<A, T> {
    return this as unknown as Family<A, T>;
  }

  private make(args: A): Statement<R> {
    return statement<R>(this.name, this.build(...args), this.prepared?.(...args) ?? false);
  }
}

/** A statement with its parameters, whose text varies with its arguments (see the file's comment). */
export class FamilyWithParams<A extends unknown[], R = Record<string, unknown>> {
  constructor(
    readonly name: string,
    private readonly build: (...args: A) => { text: string; params: unknown[] },
  ) {}

  /** The statement of these arguments, and its parameters. */
  of(...args: A): BoundStatement<R> {
    const { text, params } = this.build(...args);
    return { statement: statement<R>(this.name, text, false), params };
  }

  /** Types the rows of the family's statements. */
  rows<T>(): FamilyWithParams<A, T> {
    return this as unknown as FamilyWithParams<A, T>;
  }
}

/**
 * A family of statements: `family('area.what', (n: number) => `… IN (${placeholders(n)})`, [[1], [3]])`.
 * `samples` are argument lists the snapshot writes the text of; `prepared` tells the variants
 * whose text is one of a few (kept prepared per connection on the read path).
 */
export function family<A extends unknown[]>(
  name: string,
  build: (...args: A) => string,
  samples: readonly A[],
  options: { prepared?: (...args: A) => boolean } = {},
): Family<A> {
  const file = declaringFile();
  const made = new Family<A>(claim(name), build, options.prepared);
  declarations.push(() => ({ kind: 'family', name, file, variants: samples.map((args) => ({ args: argsOf(args), text: build(...args) })) }));
  return made;
}

/** A family whose text and parameters are written together (see the file's comment). */
export function familyWithParams<A extends unknown[]>(
  name: string,
  build: (...args: A) => { text: string; params: unknown[] },
  samples: readonly A[],
): FamilyWithParams<A> {
  const file = declaringFile();
  const made = new FamilyWithParams<A>(claim(name), build);
  declarations.push(() => ({ kind: 'family', name, file, variants: samples.map((args) => ({ args: argsOf(args), text: build(...args).text })) }));
  return made;
}

/** A sample's arguments as the snapshot writes them: `(3, 'mysql')`. */
function argsOf(args: readonly unknown[]): string {
  return `(${args.map(valueOf).join(', ')})`;
}

function valueOf(v: unknown): string {
  if (v instanceof Date) return v.toISOString();
  if (Array.isArray(v)) return v.length > 6 ? `[${v.length} values]` : `[${v.map(valueOf).join(', ')}]`;
  if (v && typeof v === 'object')
    return `{ ${Object.entries(v)
      .map(([k, x]) => `${k}: ${valueOf(x)}`)
      .join(', ')} }`;
  return typeof v === 'string' ? `'${v}'` : String(v);
}

/** `?, ?, ?` for a list of n values. */
export function placeholders(n: number): string {
  return n <= 0 ? '' : '?' + ', ?'.repeat(n - 1);
}
