import type { SqlValue } from './sql-value.js';
import type { SqlDialect, SqlType } from './dialect.js';

/**
 * The values of one statement: each bound value gets the next placeholder. Never pastes a value
 * into the SQL text. `fork()` continues the numbering on a copy, so several statements can share
 * a prefix (the report's CTEs) and bind their own values after it.
 */
export class Binder {
  private constructor(
    private readonly dialect: SqlDialect,
    private readonly values: SqlValue[],
  ) {}

  static start(dialect: SqlDialect): Binder {
    return new Binder(dialect, []);
  }

  /** The placeholder of `value`, typed when `type` is given. */
  bind(value: SqlValue, type?: SqlType): string {
    this.values.push(value);
    return this.dialect.placeholder(this.values.length, type);
  }

  /** The placeholder of an already bound value (1-based), e.g. the organization every CTE reads. */
  placeholder(index: number, type?: SqlType): string {
    return this.dialect.placeholder(index, type);
  }

  fork(): Binder {
    return new Binder(this.dialect, [...this.values]);
  }

  get params(): readonly SqlValue[] {
    return this.values;
  }
}
