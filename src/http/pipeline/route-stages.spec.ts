import { Controller, Get, Param, Query, SetMetadata } from '@nestjs/common';
import { METHOD_METADATA, PATH_METADATA, ROUTE_ARGS_METADATA } from '@nestjs/common/constants.js';
import type { HttpAdapterHost } from '@nestjs/core';
import { RouteStages, Staged, stagesOf, type Stage, type StageRequest } from './route-stages.js';

/** A stage that records what it is given and answers for the requests that carry `x-stage`. */
class RecordingStage implements Stage {
  runs: { method: Function; value: unknown }[] = [];
  applies(req: StageRequest): boolean {
    return req.headers['x-stage'] !== undefined;
  }
  async run(req: StageRequest, method: Function, handle: () => Promise<unknown>): Promise<unknown> {
    const value = await handle();
    this.runs.push({ method, value });
    return { staged: value };
  }
}

@Controller('things')
class ThingsController {
  calls: unknown[][] = [];

  @Staged('delta-list')
  @SetMetadata('before', 1)
  @Get(':id')
  list(@Param('id') id: string, @Query() q: object): unknown {
    this.calls.push([id, q]);
    return { id };
  }
}
// A decorator applied after the stage (above it) lands on the staged method as well.
SetMetadata('after', 2)(ThingsController.prototype, 'list', Object.getOwnPropertyDescriptor(ThingsController.prototype, 'list')!);

describe('route stages', () => {
  const express = { locals: {} as Record<string, unknown> };
  const stages = new RouteStages({ httpAdapter: { getInstance: () => express } } as unknown as HttpAdapterHost);
  stages.onModuleInit();
  const stage = new RecordingStage();
  stages.provide('delta-list', stage);
  const request = (headers: Record<string, string> = {}) => ({ headers, app: express }) as unknown as StageRequest;
  const method = () => ThingsController.prototype.list as unknown as (...args: unknown[]) => unknown;

  it('keeps what Nest and OpenAPI read off the method, and names the stage', () => {
    const m = method();
    expect(m.name).toBe('list');
    expect(Reflect.getMetadata(PATH_METADATA, m)).toBe(':id');
    expect(Reflect.getMetadata(METHOD_METADATA, m)).toBe(0); // GET
    expect(Reflect.getMetadata('before', m)).toBe(1);
    expect(Reflect.getMetadata('after', m)).toBe(2);
    expect(stagesOf(m)).toEqual(['delta-list']);
  });

  it('asks Nest for the request as one more argument, after the route’s own', () => {
    const args = Reflect.getMetadata(ROUTE_ARGS_METADATA, ThingsController, 'list') as Record<string, { index: number }>;
    expect(
      Object.values(args)
        .map((a) => a.index)
        .sort(),
    ).toEqual([0, 1, 2]);
  });

  it('runs the method as it is for a request the stage does not apply to', async () => {
    const sut = new ThingsController();
    expect(await method().call(sut, 'a', { limit: 1 }, request())).toEqual({ id: 'a' });
    expect(sut.calls).toEqual([['a', { limit: 1 }]]);
    expect(stage.runs).toEqual([]);
  });

  it('runs the stage around the method for a request it applies to, with the method and its metadata', async () => {
    const sut = new ThingsController();
    expect(await method().call(sut, 'b', {}, request({ 'x-stage': '1' }))).toEqual({ staged: { id: 'b' } });
    expect(sut.calls).toEqual([['b', {}]]);
    expect(stage.runs).toEqual([{ method: method(), value: { id: 'b' } }]);
  });

  it('finds the stages of the application the request came to, and refuses a request of none', () => {
    expect(RouteStages.of(request())).toBe(stages);
    expect(() => RouteStages.of({ headers: {}, app: { locals: {} } } as unknown as StageRequest)).toThrow(/no application with RouteStages/);
    expect(() => stages.provide('delta-list', stage)).toThrow(/provided twice/);
  });
});
