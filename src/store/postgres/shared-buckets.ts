import { bucketDecision, type BucketDecision, type RateBuckets } from '../../shared/token-bucket.js';
import type { PostgresStore } from './postgres-store.js';

/**
 * Token buckets every replica shares (issue 37): a bucket is a row of `rate_buckets`, refilled
 * and taken from in one statement under its row lock, by PostgreSQL's clock. So N replicas allow
 * a client its rate, not N times it. The cost is one round trip per request (an INSERT ... ON
 * CONFLICT DO UPDATE of one row, outside any transaction: bench/replicas.ts measures it); requests
 * of one key queue on its row, which at the default 50/s is never long.
 */
export class SharedBuckets implements RateBuckets {
  constructor(
    private readonly store: PostgresStore,
    /** Which limit: keys of different policies never meet. */
    private readonly policy: string,
    readonly ratePerSecond: number,
    readonly burst: number,
  ) {}

  async take(key: string): Promise<BucketDecision> {
    const [row] = await this.store.statement<{ level: number; allowed: boolean }>(
      TAKE,
      [this.policy, key, this.burst, this.ratePerSecond],
      'adreport_rate_bucket_take',
    );
    return bucketDecision(this, row!.allowed, row!.level);
  }
}

const REFILLED =
  'least($3::DOUBLE PRECISION, b.level + extract(epoch from now() - b.updated_at) * $4::DOUBLE PRECISION)';

/** SET expressions read the row as it was: `allowed` and `level` both come from the refilled old level. */
const TAKE = `INSERT INTO rate_buckets AS b (policy, key, level, allowed, updated_at)
  VALUES ($1, $2, $3::DOUBLE PRECISION - 1, true, now())
  ON CONFLICT (policy, key) DO UPDATE SET
    allowed = ${REFILLED} >= 1,
    level = ${REFILLED} - CASE WHEN ${REFILLED} >= 1 THEN 1 ELSE 0 END,
    updated_at = now()
  RETURNING level, allowed`;
