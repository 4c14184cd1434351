import { setTimeout as sleep } from 'node:timers/promises';
import { AD_PLATFORM_TYPES, PlatformError, type AdPlatformType } from '../connector.js';
import type { SandboxFaultConfig, SandboxFaults } from './fault-config.js';
import { Rng } from './random.js';

/** What a throttled call is told to wait; real platforms ask for about a second. */
export const THROTTLE_RETRY_AFTER_MS = 1000;

type Scope = number | '*';

/** One setFaults call: the faults plus what is left of its counters. */
interface ActiveFaults {
  readonly faults: SandboxFaults;
  failLeft: number;
  throttleLeft: number;
  readonly random: Rng;
}

/**
 * Holds the faults switched on, per (organization or '*', platform), and applies them at the
 * start of a connector call. An organization's own faults and the '*' faults both apply: '*'
 * models an outage of the platform as a whole (its counters are shared by every
 * organization), an organization's entry models trouble with its credentials. Latencies add
 * up; the first fault that fires decides the error, in the order revoked, throttled, failing,
 * random failure, organization before '*'.
 */
export class FaultInjector {
  private readonly active = new Map<string, ActiveFaults>();

  constructor(config: SandboxFaultConfig = {}) {
    for (const platform of AD_PLATFORM_TYPES) {
      const faults = config[platform];
      if (faults) this.set('*', platform, faults);
    }
  }

  /** Replaces the faults of one scope; counters and the random sequence start over. */
  set(scope: Scope, platform: AdPlatformType, faults: SandboxFaults): void {
    const key = keyOf(scope, platform);
    this.active.set(key, {
      faults: {
        ...faults,
        revoked: Array.isArray(faults.revoked) ? [...faults.revoked] : faults.revoked,
        ...(faults.rejectCampaigns ? { rejectCampaigns: [...faults.rejectCampaigns] } : {}),
      },
      failLeft: faults.failNext ?? 0,
      throttleLeft: faults.throttleNext ?? 0,
      random: Rng.of('faults', key),
    });
  }

  /** Switches every fault off, those from the start configuration too. */
  clear(): void {
    this.active.clear();
  }

  /**
   * Runs before a call that names `ids` (master or account ids). The outcome is decided at
   * once, in call order, so concurrent calls consume counters deterministically; then the
   * latency passes; then the error, if any, is thrown.
   */
  async beforeCall(organizationId: number, platform: AdPlatformType, ids: readonly string[]): Promise<void> {
    const scopes = [this.active.get(keyOf(organizationId, platform)), this.active.get(keyOf('*', platform))].filter(
      (entry): entry is ActiveFaults => entry !== undefined,
    );
    if (scopes.length === 0) return;
    const latency = scopes.reduce((sum, entry) => sum + (entry.faults.latencyMs ?? 0), 0);
    const error = this.decide(platform, scopes, ids);
    if (latency > 0) await sleep(latency);
    if (error) throw error;
  }

  /** Runs once createAccount has stored a new account: the crashAfterCreate fault ends the process here. */
  afterAccountCreated(organizationId: number, platform: AdPlatformType): void {
    const crash = [keyOf(organizationId, platform), keyOf('*', platform)].some(
      (key) => this.active.get(key)?.faults.crashAfterCreate === true,
    );
    if (crash) process.kill(process.pid, 'SIGKILL');
  }

  /** Whether the organization's or the '*' faults make the platform refuse a campaign of this name. */
  refusesCampaign(organizationId: number, platform: AdPlatformType, name: string): boolean {
    return [keyOf(organizationId, platform), keyOf('*', platform)].some(
      (key) => this.active.get(key)?.faults.rejectCampaigns?.includes(name) ?? false,
    );
  }

  private decide(
    platform: AdPlatformType,
    scopes: readonly ActiveFaults[],
    ids: readonly string[],
  ): PlatformError | undefined {
    for (const entry of scopes) {
      const revoked = entry.faults.revoked;
      if (revoked === true || (Array.isArray(revoked) && ids.some((id) => revoked.includes(id)))) {
        return new PlatformError(
          platform,
          'ACCESS_DENIED',
          `Access to ${ids[0] ?? 'this platform'} was revoked (sandbox fault)`,
        );
      }
    }
    for (const entry of scopes) {
      if (entry.throttleLeft > 0) {
        entry.throttleLeft--;
        return new PlatformError(
          platform,
          'RATE_LIMITED',
          'Too many requests (sandbox fault)',
          THROTTLE_RETRY_AFTER_MS,
        );
      }
    }
    for (const entry of scopes) {
      if (entry.failLeft > 0) {
        entry.failLeft--;
        return new PlatformError(platform, 'UNAVAILABLE', 'The platform answered 503 (sandbox fault)');
      }
    }
    let failed = false;
    // Every scope with a rate draws once per call that gets this far, so the sequence is reproducible.
    for (const entry of scopes) {
      const rate = entry.faults.failureRate ?? 0;
      if (rate > 0 && entry.random.next() < rate) failed = true;
    }
    return failed
      ? new PlatformError(platform, 'UNAVAILABLE', 'The platform answered 500 (sandbox fault, random)')
      : undefined;
  }
}

function keyOf(scope: Scope, platform: AdPlatformType): string {
  return `${scope}|${platform}`;
}
