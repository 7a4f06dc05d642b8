import { EventEmitter } from 'node:events';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { WireCodec } from '../wire/codec.js';
import { ServerLifecycle } from './server-lifecycle.js';

/** A request and response as the middleware sees them: events, headers and the two flags drain reads. */
function exchange() {
  const req = Object.assign(new EventEmitter(), { complete: true }) as unknown as IncomingMessage;
  const headers: Record<string, string> = {};
  const res = Object.assign(new EventEmitter(), {
    headersSent: false,
    setHeader: (name: string, value: string) => void (headers[name] = value),
  }) as unknown as ServerResponse & EventEmitter & { headersSent: boolean };
  return { req, res, headers };
}

function fakeServer() {
  const calls = { close: 0, idle: 0, all: 0 };
  const server = {
    listening: true,
    close: (cb: () => void) => {
      calls.close++;
      setImmediate(cb);
    },
    closeIdleConnections: () => void calls.idle++,
    closeAllConnections: () => void calls.all++,
  } as unknown as Server;
  return { server, calls };
}

describe('ServerLifecycle', () => {
  let sut: ServerLifecycle;
  beforeEach(() => {
    sut = new ServerLifecycle({} as WireCodec);
  });

  it('counts a request from the middleware until its response finishes or closes, once', () => {
    const a = exchange();
    const b = exchange();
    let nexts = 0;
    const next = () => void nexts++;
    sut.middleware(a.req, a.res, next);
    sut.middleware(b.req, b.res, next);
    expect(nexts).toBe(2);
    expect(sut.inFlightCount).toBe(2);

    a.res.emit('finish');
    a.res.emit('close'); // both events come for one response: counted out once
    expect(sut.inFlightCount).toBe(1);
    b.res.emit('close'); // a client that went away
    expect(sut.inFlightCount).toBe(0);
  });

  it('in whatever order requests end, the rest stay in flight (first, middle and last of the list)', () => {
    const all = Array.from({ length: 5 }, exchange);
    for (const x of all) sut.middleware(x.req, x.res, () => undefined);
    for (const i of [4, 0, 2]) all[i].res.emit('finish');
    expect(sut.inFlightCount).toBe(2);
    for (const i of [1, 3]) all[i].res.emit('finish');
    expect(sut.inFlightCount).toBe(0);
  });

  it('drain finds every request still in flight after others ended around them', async () => {
    const all = Array.from({ length: 6 }, exchange);
    for (const x of all) sut.middleware(x.req, x.res, () => undefined);
    for (const i of [2, 1, 5]) all[i].res.emit('finish'); // a middle one, its older neighbour, the newest
    const { server } = fakeServer();
    const drained = sut.drain(server);
    expect(all.map((x) => x.headers.Connection ?? '-')).toEqual(['close', '-', '-', 'close', 'close', '-']);
    for (const i of [0, 3, 4]) all[i].res.emit('finish');
    await drained;
  });

  it('drain asks every unanswered request in flight to close its connection, and none that has ended', async () => {
    const ended = exchange();
    const answering = exchange();
    const waiting = exchange();
    const later = exchange();
    for (const x of [ended, answering, waiting, later]) sut.middleware(x.req, x.res, () => undefined);
    ended.res.emit('finish');
    answering.res.headersSent = true;

    const { server, calls } = fakeServer();
    const drained = sut.drain(server);
    expect(sut.draining).toBe(true);
    expect(waiting.headers.Connection).toBe('close');
    expect(later.headers.Connection).toBe('close');
    expect(answering.headers.Connection).toBeUndefined();
    expect(ended.headers.Connection).toBeUndefined();
    expect(calls.idle).toBe(1);
    expect(calls.all).toBe(0); // three still in flight

    // A request that arrives while draining is told its connection closes too.
    const arriving = exchange();
    sut.middleware(arriving.req, arriving.res, () => undefined);
    expect(arriving.headers.Connection).toBe('close');

    for (const x of [answering, waiting, later, arriving]) x.res.emit('finish');
    await new Promise((r) => setImmediate(r));
    expect(sut.inFlightCount).toBe(0);
    expect(calls.all).toBeGreaterThan(0); // nothing in flight: the remaining connections close
    await drained;
  });
});
