import { describe, expect, it } from 'vitest';
import { ifMatchHolds, ifNoneMatchHolds, parseEntityTagList, TAG_LIST_PATTERN } from '../../src/http/conditional.js';
import { canonicalJson, representationTag } from '../../src/shared/entity-tag.js';

describe('parseEntityTagList (RFC 9110 13.1.1: "*" / #entity-tag)', () => {
  it('reads *, one tag, and lists with weak tags, spaces and empty elements', () => {
    expect(parseEntityTagList('*')).toBe('*');
    expect(parseEntityTagList(' \t* ')).toBe('*');
    expect(parseEntityTagList('"a"')).toEqual([{ weak: false, tag: '"a"' }]);
    expect(parseEntityTagList(' "a" ,\tW/"b" ')).toEqual([
      { weak: false, tag: '"a"' },
      { weak: true, tag: '"b"' },
    ]);
    // Empty list elements are ignored (5.6.1); "" is an entity-tag with an empty opaque part.
    expect(parseEntityTagList(', ,"a",, "",')).toEqual([
      { weak: false, tag: '"a"' },
      { weak: false, tag: '""' },
    ]);
  });

  it('keeps a comma inside a tag as part of it', () => {
    expect(parseEntityTagList('"a,b", "c"')).toEqual([
      { weak: false, tag: '"a,b"' },
      { weak: false, tag: '"c"' },
    ]);
  });

  it('refuses what is neither * nor a list of tags', () => {
    for (const value of [
      '',
      ' ',
      ',',
      ', ,',
      'nope',
      '"a" "b"',
      '"a"x',
      'W/a',
      'w/"a"',
      '*, "a"',
      '"a", *',
      '"a',
      'a"',
      '"a b"',
      '"a"b"',
    ])
      expect(parseEntityTagList(value), JSON.stringify(value)).toBeUndefined();
  });
  it("the document's pattern accepts exactly what the parser accepts", () => {
    const pattern = new RegExp(TAG_LIST_PATTERN, 'u');
    for (const value of [
      '*',
      ' * ',
      '"a"',
      ' "a" ,\tW/"b" ',
      ', ,"a",, "",',
      '"a,b", "c"',
      '',
      ',',
      'nope',
      '"a" "b"',
      '"a"x',
      'W/a',
      '*, "a"',
      '"a',
      '"a b"',
    ])
      expect(pattern.test(value), JSON.stringify(value)).toBe(parseEntityTagList(value) !== undefined);
  });
});

describe('conditions against the current tag', () => {
  const current = '"abc"';
  const list = (value: string) => parseEntityTagList(value)!;

  it('If-Match compares strongly: * or the same strong tag; a weak tag never matches', () => {
    expect(ifMatchHolds('*', current)).toBe(true);
    expect(ifMatchHolds(list('"abc"'), current)).toBe(true);
    expect(ifMatchHolds(list('"x", "abc"'), current)).toBe(true);
    expect(ifMatchHolds(list('W/"abc"'), current)).toBe(false);
    expect(ifMatchHolds(list('"abd"'), current)).toBe(false);
    expect(ifMatchHolds(list('"ABC"'), current)).toBe(false);
  });

  it('If-None-Match fails on * or a listed tag, weak or strong (weak comparison)', () => {
    expect(ifNoneMatchHolds('*', current)).toBe(false);
    expect(ifNoneMatchHolds(list('"abc"'), current)).toBe(false);
    expect(ifNoneMatchHolds(list('W/"abc"'), current)).toBe(false);
    expect(ifNoneMatchHolds(list('"x", "y"'), current)).toBe(true);
  });
});

describe('representationTag', () => {
  it('is one strong tag per representation: member order and undefined members do not matter', () => {
    const a = representationTag({ id: 1, labels: { b: '2', a: '1' }, notes: null });
    expect(a).toMatch(/^"[A-Za-z0-9_-]{22}"$/);
    expect(representationTag({ notes: null, labels: { a: '1', b: '2' }, id: 1, extra: undefined })).toBe(a);
  });

  it('changes with any value, null against absent, and array order', () => {
    const base = { id: 1, name: 'x', links: [{ id: 1 }, { id: 2 }], notes: null };
    const tag = representationTag(base);
    for (const changed of [
      { ...base, name: 'y' },
      { ...base, id: 2 },
      { ...base, notes: '' },
      { id: 1, name: 'x', links: [{ id: 1 }, { id: 2 }] },
      { ...base, links: [{ id: 2 }, { id: 1 }] },
      { ...base, name: 1 },
    ])
      expect(representationTag(changed), JSON.stringify(changed)).not.toBe(tag);
  });

  it('canonicalJson is JSON: it parses back to the same value', () => {
    const value = { b: [1, 'two', null, { d: true, c: 1.5 }], a: 'ü"\\' };
    expect(JSON.parse(canonicalJson(value))).toEqual(value);
    expect(canonicalJson(value)).toBe('{"a":"ü\\"\\\\","b":[1,"two",null,{"c":1.5,"d":true}]}');
  });
});
