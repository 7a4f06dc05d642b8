import type { EventEmitter } from 'node:events';

/**
 * Resolves on `emitter`'s next `name` event or when `closer` emits 'close', whichever comes first,
 * leaving no listener behind: a writer waiting for 'drain' of a destination that may go away.
 */
export function eventOrClose(emitter: EventEmitter, name: string, closer: EventEmitter = emitter): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = () => {
      emitter.off(name, done);
      closer.off('close', done);
      resolve();
    };
    emitter.on(name, done);
    closer.on('close', done);
  });
}
