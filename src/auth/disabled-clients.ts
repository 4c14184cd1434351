import type { Store } from '../store/store.js';
import { listDisabledClientIds } from './clients.js';

/**
 * The set of disabled client ids, held in memory so token checks need no query, and re-read on
 * an interval so a client disabled by any path loses its tokens within that interval (< 60 s).
 */
export class DisabledClients {
  private ids = new Set<string>();
  private timer: NodeJS.Timeout | undefined;

  constructor(
    private readonly db: Store,
    private readonly refreshMs: number,
    private readonly onError: (error: unknown) => void,
  ) {}

  has(clientId: string): boolean {
    return this.ids.has(clientId);
  }

  async refresh(): Promise<void> {
    this.ids = new Set(await this.db.read(listDisabledClientIds));
  }

  async start(): Promise<void> {
    await this.refresh();
    this.timer = setInterval(() => this.refresh().catch(this.onError), this.refreshMs);
    this.timer.unref();
  }

  stop(): void {
    if (this.timer) clearInterval(this.timer);
  }
}
