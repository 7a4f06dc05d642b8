import type { SetupStep } from '../../src/testing/cases.js';
import type { Features } from '../factories/features.js';
import { worldSteps } from '../factories/world.js';

/** How buildWorld orders what the cases files declare (test/factories/world.ts). */
const features = (kinds: Features['kinds'], steps: SetupStep[] = []): Features => ({ files: [], kinds, steps, routes: {}, patches: [], origin: {} });
const step = (makes: string, needs: string[] = [], last?: true): SetupStep => ({ makes: [makes], needs, last, run: async () => undefined });
const order = (f: Features) => worldSteps(f).map((s) => s.makes.join());

describe('the order a World is built in', () => {
  it('makes each kind after what it needs, else in the order of declaration, and a step marked last only when nothing else can run', () => {
    const f = features({ webhook: { last: true }, goal: { needs: ['period'] }, period: {}, color: {} }, [step('ping', ['webhook']), step('values', ['goal'])]);
    expect(order(f)).toEqual(['period', 'goal', 'color', 'values', 'webhook', 'ping']);
  });

  it('names a need no cases file makes, and needs that wait on each other', () => {
    expect(() => worldSteps(features({ goal: { needs: ['period'] } }))).toThrow('goal needs period, which no cases file makes');
    expect(() => worldSteps(features({ a: { needs: ['b'] }, b: { needs: ['a'] } }))).toThrow('the world cannot make a; b: their needs wait on each other');
  });
});
