import { describe, expect, it } from 'vitest';
import { ApiError } from '../../src/shared/errors.js';
import { QueryParams, refuseUnknownParameters } from '../../src/shared/query-params.js';

/** The 400 a call throws, or a failure when it does not throw one. */
function refusal(call: () => unknown): ApiError {
  try {
    call();
  } catch (error) {
    if (error instanceof ApiError) return error;
    throw error;
  }
  throw new Error('expected a 400');
}

describe('QueryParams: lists may repeat, other parameters may not', () => {
  const allowed = ['segments', 'limit', 'formulas'];
  const lists = ['segments', 'formulas'];

  it('joins the values of a list with commas, in the order sent', () => {
    const query = QueryParams.parse('?segments=Week,Day&limit=5&segments=DeviceType', allowed, lists);
    expect(query.get('segments')).toBe('Week,Day,DeviceType');
    expect(query.getAll('segments')).toEqual(['Week,Day', 'DeviceType']);
    expect(query.get('limit')).toBe('5');
  });

  it('reads a list given once as it was sent, and an absent one as undefined', () => {
    expect(QueryParams.parse('?segments=Week', allowed, lists).get('segments')).toBe('Week');
    expect(QueryParams.parse('?limit=1', allowed, lists).get('segments')).toBeUndefined();
    // An empty value stays visible as an empty entry, for the list's own check to refuse.
    expect(QueryParams.parse('?segments=Week&segments=', allowed, lists).get('segments')).toBe('Week,');
  });

  it('percent-decodes each value before joining (an encoded comma separates too)', () => {
    expect(QueryParams.parse('?segments=Week%2CDay&segments=Month', allowed, lists).get('segments')).toBe(
      'Week,Day,Month',
    );
  });

  it('refuses a parameter that is not a list given twice', () => {
    const error = refusal(() => QueryParams.parse('?limit=1&limit=1', allowed, lists));
    expect([error.status, error.code, error.details[0]?.field, error.details[0]?.code]).toEqual([
      400,
      'invalid_parameter',
      'limit',
      'repeated',
    ]);
    // Without being declared a list, a repeated name is refused too.
    expect(refusal(() => QueryParams.parse('?segments=a&segments=b', allowed)).details[0]?.field).toBe('segments');
  });
});

describe('refuseUnknownParameters', () => {
  it('names the parameter and lists the known ones sorted', () => {
    const error = refusal(() => refuseUnknownParameters('/x?limit=1&zz=1', ['offset', 'limit']));
    expect([error.status, error.code, error.details[0]?.field]).toEqual([400, 'unknown_parameter', 'zz']);
    expect(error.message).toBe('Unknown query parameter zz; this endpoint takes limit, offset.');
  });

  it('says when an endpoint takes none', () => {
    expect(refusal(() => refuseUnknownParameters('https://h/health?v=2', [])).message).toBe(
      'Unknown query parameter v; this endpoint takes no query parameters.',
    );
  });

  it('lets known parameters and an empty query through', () => {
    expect(() => refuseUnknownParameters('/x?limit=1&offset=0', ['offset', 'limit'])).not.toThrow();
    expect(() => refuseUnknownParameters('/x?', [])).not.toThrow();
    expect(() => refuseUnknownParameters('/x', [])).not.toThrow();
  });
});
