import { describe, expect, it } from 'vitest';
import { WorkPump, type Taken, type WorkSource } from '../../src/runtime/work-pump.js';
import { poll } from '../helpers/poll.js';

/*
 * The loop the job runner, the report job runner and the webhook delivery worker share (issue 37,
 * first step). A queue in memory stands for their tables: items are due or not, taking one claims
 * it, and a run ends when the test releases it, so every assertion waits for an event.
 */
class Queue implements WorkSource<number> {
  readonly due: number[] = [];
  readonly started: number[] = [];
  readonly releases = new Map<number, () => void>();
  looks = 0;
  failNextLook: unknown;
  nextDueAt: Date | undefined;

  async take(room: number, busy: ReadonlySet<number>): Promise<Taken<number>> {
    this.looks += 1;
    if (this.failNextLook !== undefined) {
      const error = this.failNextLook;
      this.failNextLook = undefined;
      throw error;
    }
    const items = this.due.filter((id) => !busy.has(id)).slice(0, room);
    for (const id of items) this.due.splice(this.due.indexOf(id), 1);
    return items.length > 0 ? { items } : { items: [], nextDueAt: this.nextDueAt };
  }

  run(id: number): Promise<void> {
    this.started.push(id);
    return new Promise((resolve) => this.releases.set(id, resolve));
  }

  idOf(id: number): number {
    return id;
  }

  release(id: number): void {
    this.releases.get(id)!();
    this.releases.delete(id);
  }
}

function pumpOf(queue: Queue, options: { concurrency?: number; pollMs?: number } = {}) {
  const logged: Array<{ error: unknown; id: number | undefined }> = [];
  const pump = new WorkPump(queue, {
    concurrency: options.concurrency ?? 2,
    pollMs: options.pollMs ?? 60_000,
    now: () => new Date(),
    log: (error, id) => logged.push({ error, id }),
    isQuiet: (error) => error === 'busy',
  });
  return { pump, logged };
}

describe('WorkPump', () => {
  it('runs at most `concurrency` items at once, and takes the next when one ends', async () => {
    const queue = new Queue();
    queue.due.push(1, 2, 3, 4);
    const { pump } = pumpOf(queue, { concurrency: 2 });
    pump.start();
    await poll('two started', () => (queue.started.length === 2 ? true : undefined));
    expect(queue.started).toEqual([1, 2]);
    queue.release(1);
    await poll('the third started', () => (queue.started.length === 3 ? true : undefined));
    expect(queue.started).toEqual([1, 2, 3]);
    expect(queue.releases.size).toBe(2);
    for (const id of [...queue.releases.keys()]) queue.release(id);
    await poll('the fourth started', () => (queue.started.length === 4 ? true : undefined));
    queue.release(4);
    await pump.stop(60_000);
  });

  it('looks again on wake(): an item enqueued later starts without waiting for pollMs', async () => {
    const queue = new Queue();
    const { pump } = pumpOf(queue, { pollMs: 600_000 });
    pump.start();
    await poll('the first look', () => (queue.looks > 0 ? true : undefined));
    queue.due.push(7);
    pump.wake();
    await poll('the enqueued item started', () => (queue.started.includes(7) ? true : undefined));
    queue.release(7);
    await pump.stop(60_000);
  });

  it('logs a failed look and looks again after pollMs; a quiet failure is not logged', async () => {
    const queue = new Queue();
    queue.failNextLook = new Error('the store is closed');
    const { pump, logged } = pumpOf(queue, { pollMs: 20 });
    queue.due.push(5);
    pump.start();
    await poll('the item started after the failed look', () => (queue.started.includes(5) ? true : undefined));
    expect(logged.map((l) => [(l.error as Error).message, l.id])).toEqual([['the store is closed', undefined]]);
    queue.failNextLook = 'busy';
    queue.due.push(6);
    pump.wake();
    await poll('the item started after the quiet failure', () => (queue.started.includes(6) ? true : undefined));
    expect(logged).toHaveLength(1);
    queue.release(5);
    queue.release(6);
    await pump.stop(60_000);
  });

  it('logs a failed run with its id and goes on', async () => {
    const queue = new Queue();
    const failing: WorkSource<number> = {
      take: (room, busy) => queue.take(room, busy),
      idOf: (id) => id,
      run: (id) => (id === 8 ? Promise.reject(new Error('boom')) : queue.run(id)),
    };
    const logged: Array<{ error: unknown; id: number | undefined }> = [];
    const pump = new WorkPump(failing, {
      concurrency: 1,
      pollMs: 60_000,
      now: () => new Date(),
      log: (error, id) => logged.push({ error, id }),
    });
    queue.due.push(8, 9);
    pump.start();
    await poll('the next item started', () => (queue.started.includes(9) ? true : undefined));
    expect(logged.map((l) => [(l.error as Error).message, l.id])).toEqual([['boom', 8]]);
    queue.release(9);
    await pump.stop(60_000);
  });

  it('stop() takes nothing more and waits for the runs in flight', async () => {
    const queue = new Queue();
    queue.due.push(1);
    const { pump } = pumpOf(queue, { concurrency: 1 });
    pump.start();
    await poll('started', () => (queue.started.length === 1 ? true : undefined));
    let stopped = false;
    const stopping = pump.stop(600_000).then(() => (stopped = true));
    queue.due.push(2);
    pump.wake();
    await Promise.resolve();
    expect(stopped).toBe(false);
    queue.release(1);
    await stopping;
    expect(stopped).toBe(true);
    expect(queue.started).toEqual([1]);
    expect(queue.due).toEqual([2]);
  });
});
