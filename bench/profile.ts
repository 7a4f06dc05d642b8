/**
 * Reads a V8 `.cpuprofile` (written by `node --cpu-prof`) and says where the CPU of a window of
 * requests went: self time grouped by package (or by folder of the service's own code), per
 * request and as a share of the busy time, plus the hottest functions.
 */
import { readFileSync } from 'node:fs';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

export interface Breakdown {
  /** Busy CPU in the window (idle excluded), in ms. */
  busyMs: number;
  windowMs: number;
  groups: { name: string; ms: number }[];
  functions: { name: string; ms: number }[];
  /** Inclusive time (the function and everything it called) of the functions asked for by name. */
  focus: { name: string; ms: number }[];
}

/** `typeorm`, `@nestjs/core`, `node:http`, `service src/http`, `(garbage collector)`… */
function groupOf(frame: CallFrame): string {
  const url = frame.url;
  if (!url) return frame.functionName.startsWith('(') ? frame.functionName : '(native)';
  const nm = url.lastIndexOf('/node_modules/');
  if (nm >= 0) {
    const parts = url.slice(nm + '/node_modules/'.length).split('/');
    return parts[0].startsWith('@') ? `${parts[0]}/${parts[1]}` : parts[0];
  }
  if (url.startsWith('node:')) {
    const m = /^node:(?:internal\/)?([a-z_]+)/.exec(url);
    return `node:${m?.[1] ?? 'internal'}`;
  }
  const src = /\/dist\/(src\/[^/]+(?:\/[^/]+)?)\//.exec(url) ?? /\/dist\/(src)\//.exec(url);
  if (src) return `service ${src[1]}`;
  return url.replace(/^.*\//, '');
}

/**
 * Summarises the samples between two CLOCK_MONOTONIC instants in µs (the clock of V8's profiler
 * and of `process.hrtime`, shared by the processes of one machine); without a window, all of it.
 */
export function summarise(file: string, window?: { fromUs: number; toUs: number }, focus: readonly string[] = []): Breakdown {
  const p = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const byId = new Map(p.nodes.map((n) => [n.id, n]));
  // Each node's caller, to walk a sample's stack: only when functions are asked for.
  const parent = new Map<number, number>();
  if (focus.length) for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const focused = new Map<string, number>(focus.map((name) => [name, 0]));
  const groups = new Map<string, number>();
  const functions = new Map<string, number>();
  let t = p.startTime;
  let busy = 0;
  let first = Infinity;
  let last = -Infinity;
  for (let i = 0; i < p.samples.length; i++) {
    t += p.timeDeltas[i];
    const dt = p.timeDeltas[i + 1] ?? 0;
    if (window && (t < window.fromUs || t > window.toUs)) continue;
    first = Math.min(first, t);
    last = Math.max(last, t);
    const frame = byId.get(p.samples[i])?.callFrame;
    if (!frame || frame.functionName === '(idle)') continue;
    busy += dt;
    const g = groupOf(frame);
    groups.set(g, (groups.get(g) ?? 0) + dt);
    const fn = `${frame.functionName || '(anonymous)'} ${g}`;
    functions.set(fn, (functions.get(fn) ?? 0) + dt);
    if (focused.size) {
      // Each named function once a sample, however deep its recursion.
      const seen = new Set<string>();
      for (let id: number | undefined = p.samples[i]; id !== undefined; id = parent.get(id)) {
        const name = byId.get(id)?.callFrame.functionName ?? '';
        if (focused.has(name) && !seen.has(name)) {
          seen.add(name);
          focused.set(name, focused.get(name)! + dt);
        }
      }
    }
  }
  const sorted = (m: Map<string, number>) => [...m.entries()].map(([name, us]) => ({ name, ms: us / 1000 })).sort((a, b) => b.ms - a.ms);
  return {
    busyMs: busy / 1000,
    windowMs: Number.isFinite(first) ? (last - first) / 1000 : 0,
    groups: sorted(groups),
    functions: sorted(functions),
    focus: [...focused.entries()].map(([name, us]) => ({ name, ms: us / 1000 })),
  };
}

/** A breakdown as Markdown, per request: where the self time went (with its share of the busy time), then the hottest functions. */
export function breakdownTables(b: Breakdown, requests: number): string[] {
  const per = (ms: number) => ((ms * 1000) / requests).toFixed(1);
  return [
    '| where (self time) | µs / request | share |',
    '|---|---:|---:|',
    ...b.groups.slice(0, 18).map((g) => `| ${g.name} | ${per(g.ms)} | ${((100 * g.ms) / b.busyMs).toFixed(1)} % |`),
    '',
    '| hottest functions (self time) | µs / request |',
    '|---|---:|',
    ...b.functions.slice(0, 15).map((f) => `| ${f.name.replace(/\|/g, '\\|')} | ${per(f.ms)} |`),
    ...(b.focus.length
      ? [
          '',
          '| functions asked for (inclusive time: with what they call) | µs / request | share |',
          '|---|---:|---:|',
          ...b.focus.map((f) => `| ${f.name} | ${per(f.ms)} | ${((100 * f.ms) / b.busyMs).toFixed(1)} % |`),
        ]
      : []),
  ];
}
