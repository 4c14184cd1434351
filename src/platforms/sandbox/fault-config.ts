import { AD_PLATFORM_ALIASES, AD_PLATFORM_TYPES, type AdPlatformType } from '../connector.js';

/** Failures the sandbox can be told to show, per platform (and optionally per organization). */
export interface SandboxFaults {
  /** Added to every call, failing or not. */
  readonly latencyMs?: number;
  /** The next N calls throw UNAVAILABLE, then calls succeed again. */
  readonly failNext?: number;
  /** The next N calls throw RATE_LIMITED with retryAfterMs. */
  readonly throttleNext?: number;
  /** 0..1: calls fail UNAVAILABLE at random, from a seeded generator (the same run fails the same calls). */
  readonly failureRate?: number;
  /** ACCESS_DENIED for every call (true) or for calls naming one of these account or master ids. */
  readonly revoked?: boolean | readonly string[];
  /**
   * Campaign names the platform refuses: createCampaign and updateCampaign of a draft with one
   * of these names throw INVALID_REQUEST (a permanent failure of one campaign, not a retryable one).
   */
  readonly rejectCampaigns?: readonly string[];
  /**
   * Kills the whole process (SIGKILL) right after createAccount stored a new account, before
   * the caller hears of it: a crash inside a job, between the platform's side effect and the
   * job's record of it. Only for the bin (ADREPORT_SANDBOX_FAULTS): in-process it kills the host.
   */
  readonly crashAfterCreate?: boolean;
}

/** Faults applied to every organization, keyed by platform. */
export type SandboxFaultConfig = Partial<Record<AdPlatformType, SandboxFaults>>;

const FIELDS = [
  'latencyMs',
  'failNext',
  'throttleNext',
  'failureRate',
  'revoked',
  'rejectCampaigns',
  'crashAfterCreate',
] as const;

/**
 * Reads ADREPORT_SANDBOX_FAULTS, e.g. `{"GOOGLE_ADS":{"latencyMs":200,"failureRate":0.1}}`.
 * Platform aliases (ADWORDS, BING_ADS) are accepted. Anything else is refused with a message
 * naming the offending key, so a typo cannot silently switch a fault off.
 */
export function parseSandboxFaults(json: string): SandboxFaultConfig {
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch (error) {
    throw new Error(`ADREPORT_SANDBOX_FAULTS is not valid JSON: ${(error as Error).message}`);
  }
  if (!isObject(parsed)) throw new Error('ADREPORT_SANDBOX_FAULTS must be a JSON object keyed by ad platform type');
  const config: Partial<Record<AdPlatformType, SandboxFaults>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    const platform = (AD_PLATFORM_TYPES as readonly string[]).includes(key)
      ? (key as AdPlatformType)
      : AD_PLATFORM_ALIASES[key];
    if (!platform)
      throw new Error(
        `ADREPORT_SANDBOX_FAULTS: unknown ad platform "${key}"; expected one of ${AD_PLATFORM_TYPES.join(', ')}`,
      );
    if (config[platform]) throw new Error(`ADREPORT_SANDBOX_FAULTS: ${platform} is given twice`);
    config[platform] = parseFaults(platform, value);
  }
  return config;
}

function parseFaults(platform: AdPlatformType, value: unknown): SandboxFaults {
  const where = `ADREPORT_SANDBOX_FAULTS.${platform}`;
  if (!isObject(value)) throw new Error(`${where} must be an object with any of ${FIELDS.join(', ')}`);
  const unknown = Object.keys(value).filter((key) => !(FIELDS as readonly string[]).includes(key));
  if (unknown.length > 0)
    throw new Error(`${where}: unknown field "${unknown[0]}"; expected any of ${FIELDS.join(', ')}`);
  const faults: { -readonly [K in keyof SandboxFaults]: SandboxFaults[K] } = {};
  if (value.latencyMs !== undefined)
    faults.latencyMs = number(value.latencyMs, `${where}.latencyMs`, 0, 600_000, false);
  if (value.failNext !== undefined)
    faults.failNext = number(value.failNext, `${where}.failNext`, 0, Number.MAX_SAFE_INTEGER, true);
  if (value.throttleNext !== undefined)
    faults.throttleNext = number(value.throttleNext, `${where}.throttleNext`, 0, Number.MAX_SAFE_INTEGER, true);
  if (value.failureRate !== undefined)
    faults.failureRate = number(value.failureRate, `${where}.failureRate`, 0, 1, false);
  if (value.revoked !== undefined) faults.revoked = revoked(value.revoked, `${where}.revoked`);
  if (value.rejectCampaigns !== undefined)
    faults.rejectCampaigns = names(value.rejectCampaigns, `${where}.rejectCampaigns`);
  if (value.crashAfterCreate !== undefined) {
    if (typeof value.crashAfterCreate !== 'boolean')
      throw new Error(`${where}.crashAfterCreate must be true or false, got ${JSON.stringify(value.crashAfterCreate)}`);
    faults.crashAfterCreate = value.crashAfterCreate;
  }
  return faults;
}

function number(value: unknown, where: string, min: number, max: number, integer: boolean): number {
  const ok =
    typeof value === 'number' &&
    Number.isFinite(value) &&
    value >= min &&
    value <= max &&
    (!integer || Number.isInteger(value));
  if (!ok)
    throw new Error(
      `${where} must be ${integer ? 'an integer' : 'a number'} from ${min} to ${max}, got ${JSON.stringify(value)}`,
    );
  return value as number;
}

function revoked(value: unknown, where: string): boolean | string[] {
  if (typeof value === 'boolean') return value;
  if (Array.isArray(value) && value.every((id): id is string => typeof id === 'string')) return [...value];
  throw new Error(`${where} must be true, false or a list of account and master ids, got ${JSON.stringify(value)}`);
}

function names(value: unknown, where: string): string[] {
  if (Array.isArray(value) && value.every((name): name is string => typeof name === 'string')) return [...value];
  throw new Error(`${where} must be a list of campaign names, got ${JSON.stringify(value)}`);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
