import { SqlError } from './wire/session.js';

/**
 * The run-time settings a session may SET and SHOW. Drivers set a few at connect (pgJDBC
 * extra_float_digits and application_name, psqlODBC DateStyle, psycopg2 datestyle); a setting
 * that would change what the server answers into something it cannot do (another DateStyle,
 * another encoding) is refused, the rest are kept and shown back.
 */
const FIXED: Record<string, string> = {
  server_encoding: 'UTF8',
  client_encoding: 'UTF8',
  datestyle: 'ISO, MDY',
  intervalstyle: 'postgres',
  timezone: 'UTC',
  integer_datetimes: 'on',
  standard_conforming_strings: 'on',
  is_superuser: 'off',
  transaction_read_only: 'on',
  default_transaction_read_only: 'on',
  transaction_isolation: 'read committed',
  default_transaction_isolation: 'read committed',
  max_identifier_length: '63',
  lc_collate: 'C',
  lc_ctype: 'C',
  bytea_output: 'hex',
};

/** Settings a client may change freely: they change nothing in our answers. */
const FREE: Record<string, string> = {
  application_name: '',
  extra_float_digits: '1',
  search_path: '"$user", public',
  client_min_messages: 'notice',
  lc_messages: 'C',
  lc_monetary: 'C',
  lc_numeric: 'C',
  lc_time: 'C',
  statement_timeout: '0',
  idle_in_transaction_session_timeout: '0',
  lock_timeout: '0',
  jit: 'off',
  geqo: 'on',
  work_mem: '4MB',
  join_collapse_limit: '8',
  enable_seqscan: 'on',
};

/** Values a fixed setting may be "set" to because they mean what it already is. */
function meansSame(name: string, value: string): boolean {
  const v = value.toLowerCase().replaceAll(' ', '');
  switch (name) {
    case 'client_encoding':
      return v === 'utf8' || v === 'utf-8' || v === 'unicode';
    case 'datestyle':
      return v === 'iso' || v === 'iso,mdy' || v === 'mdy,iso' || v === 'iso,ymd';
    case 'timezone':
      return v === 'utc' || v === 'etc/utc' || v === 'gmt' || v === 'z';
    case 'standard_conforming_strings':
      return v === 'on' || v === 'true';
    case 'intervalstyle':
      return v === 'postgres';
    case 'default_transaction_read_only':
    case 'transaction_read_only':
      return v === 'on' || v === 'true';
    case 'transaction_isolation':
    case 'default_transaction_isolation':
      return true;
    default:
      return false;
  }
}

export class SessionSettings {
  private readonly values = new Map<string, string>();

  constructor(startup: Readonly<Record<string, string>>, serverVersion: string) {
    this.values.set('server_version', serverVersion);
    this.values.set('server_version_num', serverVersionNum(serverVersion));
    for (const [name, value] of Object.entries({ ...FIXED, ...FREE })) this.values.set(name, value);
    if (startup.application_name) this.values.set('application_name', startup.application_name);
  }

  /** SET name = value (undefined: RESET / DEFAULT); answers the command tag. */
  set(name: string, value: string | undefined): string {
    if (name === 'all') {
      for (const [n, v] of Object.entries(FREE)) this.values.set(n, v);
      return 'RESET';
    }
    if (name in FREE) {
      if (name === 'statement_timeout' && value !== undefined) this.values.set(name, String(parseDuration(value)));
      else this.values.set(name, value ?? FREE[name]!);
      return value === undefined ? 'RESET' : 'SET';
    }
    if (name in FIXED || name === 'server_version' || name === 'server_version_num') {
      if (value === undefined || meansSame(name, value)) return value === undefined ? 'RESET' : 'SET';
      throw new SqlError('22023', `${name} cannot be changed on this server (it is ${this.values.get(name)})`);
    }
    throw new SqlError('42704', `unrecognized configuration parameter "${name}"`);
  }

  show(name: string): string {
    const value = this.values.get(name);
    if (value === undefined) throw new SqlError('42704', `unrecognized configuration parameter "${name}"`);
    return name === 'statement_timeout' ? showDuration(Number(value)) : value;
  }

  statementTimeoutMs(): number {
    return Number(this.values.get('statement_timeout') ?? 0);
  }
}

/** PostgreSQL's forms of a duration setting: a number of ms, or a number with a unit. */
function parseDuration(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(us|ms|s|min|h|d)?\s*$/.exec(value);
  if (!match) throw new SqlError('22023', `invalid value for parameter "statement_timeout": "${value}"`);
  const factor = { us: 0.001, ms: 1, s: 1000, min: 60_000, h: 3_600_000, d: 86_400_000 }[match[2] ?? 'ms']!;
  return Math.round(Number(match[1]) * factor);
}

function showDuration(ms: number): string {
  if (ms === 0) return '0';
  if (ms % 1000 === 0) return `${ms / 1000}s`;
  return `${ms}ms`;
}

function serverVersionNum(version: string): string {
  const [major = '15', minor = '0'] = version.split(/[.\s]/);
  return String(Number(major) * 10000 + Number(minor));
}
