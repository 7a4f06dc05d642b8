import { NotFoundException, PayloadTooLargeException } from '@nestjs/common';
import { QueryFailedError } from 'typeorm';
import { ConflictError, NotFoundError, ValidationError } from '../../common/errors/errors.js';
import type { ArgumentsHost } from '@nestjs/common';
import type { HttpAdapterHost } from '@nestjs/core';
import { WireCodec } from '../wire/codec.js';
import type { RouteIndex } from './route-index.js';
import { RawBody } from './wire-writer.js';
import { JsonLogger } from '../../common/logging/json-logger.js';
import { problemOf, ProblemFilter, toAppError } from './problem.filter.js';

function driverError(code: string, message: string): Error {
  return Object.assign(new Error(message), { code });
}

describe('toAppError', () => {
  it('passes typed errors through as expected (not logged as unexpected)', () => {
    const e = new NotFoundError('Goal', 7);
    expect(toAppError(e)).toEqual({ error: e, unexpected: false });
  });

  it('maps Nest route-not-found to a 404 problem and other HTTP exceptions by status', () => {
    expect(toAppError(new NotFoundException('Cannot GET /x')).error.status).toBe(404);
    expect(toAppError(new PayloadTooLargeException()).error.status).toBe(413);
  });

  it('answers a generic 500 for unknown errors: nothing of the message, SQL or stack reaches the body', () => {
    const sql = new QueryFailedError(
      'SELECT * FROM individuals WHERE secret = ?',
      ['x'],
      driverError('ER_PARSE_ERROR', 'You have an error in your SQL syntax near individuals'),
    );
    const { error, unexpected } = toAppError(sql);
    expect(unexpected).toBe(true);
    const body = JSON.stringify(problemOf(error, 'req-1', '/v4/x'));
    expect(error.status).toBe(500);
    expect(body).not.toMatch(/SELECT|individuals|syntax|at /);
    expect(body).toContain('req-1');
  });

  it.each(['ECONNREFUSED', 'PROTOCOL_CONNECTION_LOST', 'ETIMEDOUT', 'SQLITE_BUSY', 'ER_LOCK_WAIT_TIMEOUT'])(
    'maps a lost or busy database (%s) to 503 with Retry-After',
    (code) => {
      const { error } = toAppError(new QueryFailedError('q', [], driverError(code, 'gone')));
      expect(error.status).toBe(503);
      expect(error.headers['Retry-After']).toBeDefined();
    },
  );

  it('maps the pool\'s "Queue limit reached." (no code) and an acquire timeout to 503, not 500', () => {
    expect(toAppError(new Error('Queue limit reached.')).error.status).toBe(503);
    expect(toAppError(Object.assign(new Error('no connection'), { code: 'POOL_ACQUIRE_TIMEOUT' })).error.status).toBe(503);
  });

  it('maps a unique-key violation that slipped past a service check to 409', () => {
    const { error } = toAppError(new QueryFailedError('q', [], driverError('ER_DUP_ENTRY', "Duplicate entry 'x' for key 'ux'")));
    expect(error).toBeInstanceOf(ConflictError);
    expect(error.detail).not.toContain('Duplicate entry');
  });
});

describe('problemOf', () => {
  it('writes RFC 9457 members and the field list of validation errors', () => {
    const sut = problemOf(new ValidationError([{ field: 'Name', message: 'Name is required' }]), 'r', '/v4/sites');
    expect(sut).toEqual({
      type: 'urn:pms:problem:validation-failed',
      title: 'The request is not valid',
      status: 400,
      detail: 'Name: Name is required',
      instance: '/v4/sites',
      requestId: 'r',
      errors: [{ field: 'Name', message: 'Name is required' }],
    });
  });
});

describe('ProblemFilter', () => {
  it('logs an unexpected error with the request id the problem body carries (docs/performance.md, "No async context")', () => {
    const lines: Record<string, unknown>[] = [];
    const replies: { body: RawBody; status: number }[] = [];
    const adapter = {
      getRequestUrl: (r: { url: string }) => r.url,
      reply: (_res: unknown, body: RawBody, status: number) => replies.push({ body, status }),
    };
    const sut = new ProblemFilter(
      { httpAdapter: adapter } as unknown as HttpAdapterHost,
      new WireCodec('urn:pms:v4'),
      new JsonLogger('info', (l) => lines.push(JSON.parse(l) as Record<string, unknown>)),
      { allowedMethods: () => [] } as unknown as RouteIndex,
    );
    const req = { url: '/v4/goals/7?x=1', method: 'GET', headers: {}, __pmsRequestId: 'req-42' };
    const res = { headersSent: false, writableEnded: false, destroyed: false };
    const host = { switchToHttp: () => ({ getRequest: () => req, getResponse: () => res }) } as unknown as ArgumentsHost;
    sut.catch(new TypeError('boom'), host);
    expect(lines).toEqual([expect.objectContaining({ level: 'error', context: 'ProblemFilter', requestId: 'req-42', msg: expect.stringContaining('boom') })]);
    expect(replies).toHaveLength(1);
    expect(replies[0].status).toBe(500);
    expect(String(replies[0].body.body)).toContain('req-42');
  });
});
