/**
 * The flags of `adreport data generate` and what they size. Scale 1 is about a million fact rows
 * (fact_ad_daily + fact_keyword_daily) over the default 400 days; rows grow with scale x days.
 */

export const DEFAULT_DAYS = 400;
export const MAX_DAYS = 1827;
export const MAX_SCALE = 10_000;
export const DEFAULT_SEED = 1;
export const MAX_SEED = 2_147_483_647;
export const ROWS_PER_SCALE = 1_000_000;
/**
 * Accounts per unit of scale. An account averages ~1.9 platform accounts, ~12 campaigns each,
 * ~6 ad groups per campaign; at this density the volume calibration lands near realistic
 * daily volumes (calibration.ts) and about a third of the candidate cells have impressions.
 */
export const ACCOUNTS_PER_SCALE = 1.5;

export interface GenerateOptions {
  readonly scale: number;
  readonly days: number;
  readonly seed: number;
  readonly orgs: number;
  /** Accounts over all organizations. */
  readonly accounts: number;
  /** Fact rows aimed at (ad + keyword rows); the result lands near it. */
  readonly targetRows: number;
  /** The last generated day, YYYY-MM-DD: yesterday (UTC) unless a caller fixes it. */
  readonly lastDay: string;
}

/** A flag outside its rules; the command prints it as one line with exit code 2. */
export class GenerateOptionError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'GenerateOptionError';
  }
}

export interface GenerateFlags {
  readonly scale?: string | undefined;
  readonly days?: string | undefined;
  readonly seed?: string | undefined;
  readonly orgs?: string | undefined;
}

export function parseGenerateOptions(flags: GenerateFlags, now: Date = new Date()): GenerateOptions {
  if (flags.scale === undefined || flags.scale === '') throw new GenerateOptionError('--scale is required');
  const scale = parseScale(flags.scale);
  const days = flags.days === undefined ? DEFAULT_DAYS : parseInteger(flags.days, 'days', 1, MAX_DAYS);
  const seed = flags.seed === undefined ? DEFAULT_SEED : parseInteger(flags.seed, 'seed', 1, MAX_SEED);
  const accounts = accountsFor(scale);
  const orgs = flags.orgs === undefined ? defaultOrgs(scale, accounts) : parsePositive(flags.orgs, 'orgs');
  if (orgs > accounts) {
    throw new GenerateOptionError(
      `--orgs must be at most the number of accounts, ${accounts} at --scale ${scale}, not ${orgs}`,
    );
  }
  const yesterday = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), now.getUTCDate() - 1));
  return {
    scale,
    days,
    seed,
    orgs,
    accounts,
    targetRows: Math.round((ROWS_PER_SCALE * scale * days) / DEFAULT_DAYS),
    lastDay: yesterday.toISOString().slice(0, 10),
  };
}

/** round(scale x 1.5), at least one. */
export function accountsFor(scale: number): number {
  return Math.max(1, Math.round(scale * ACCOUNTS_PER_SCALE));
}

/** max(1, round(sqrt(scale))), never more than there are accounts. */
export function defaultOrgs(scale: number, accounts: number): number {
  return Math.min(accounts, Math.max(1, Math.round(Math.sqrt(scale))));
}

function parseScale(text: string): number {
  if (!/^(0|[1-9][0-9]{0,5})(\.[0-9]{1,3})?$/.test(text)) {
    throw new GenerateOptionError(`--scale must be a positive number with at most 3 decimals, not "${text}"`);
  }
  const scale = Number(text);
  if (scale <= 0 || scale > MAX_SCALE)
    throw new GenerateOptionError(`--scale must be more than 0 and at most ${MAX_SCALE}, not ${text}`);
  return scale;
}

function parsePositive(text: string, flag: string): number {
  if (!/^[1-9][0-9]{0,8}$/.test(text))
    throw new GenerateOptionError(`--${flag} must be a positive integer, not "${text}"`);
  return Number(text);
}

function parseInteger(text: string, flag: string, min: number, max: number): number {
  if (!/^[0-9]{1,16}$/.test(text) || Number(text) < min || Number(text) > max) {
    throw new GenerateOptionError(`--${flag} must be an integer from ${min} to ${max}, not "${text}"`);
  }
  return Number(text);
}
