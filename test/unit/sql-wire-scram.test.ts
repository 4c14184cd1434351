import { describe, expect, it } from 'vitest';
import { beginExchange, finishExchange, makeScramVerifier, mockVerifier } from '../../src/sql-endpoint/wire/scram.js';
import { SqlError } from '../../src/sql-endpoint/wire/session.js';

/*
 * The server's half of SCRAM-SHA-256: RFC 7677's worked example, verifiers as PostgreSQL 15 makes
 * them (`CREATE ROLE ... PASSWORD` with password_encryption = scram-sha-256, read from pg_authid),
 * and the refusals of auth-scram.c.
 */

describe('RFC 7677 section 3', () => {
  // user "user", password "pencil", the RFC's nonces and salt.
  const verifier = makeScramVerifier('pencil', {
    salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64'),
    iterations: 4096,
  });
  const clientFirst = 'n,,n=user,r=rOprNGfwEbeRWgbNEkqO';
  const clientFinal =
    'c=biws,r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,p=dHzbZapWIk4jUhN+Ute9ytag9zjfMHgsqmmiz7AndVQ=';

  it('answers server-first-message and server-final-message byte for byte', () => {
    const exchange = beginExchange(clientFirst, verifier, '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    expect(exchange.serverFirst).toBe(
      'r=rOprNGfwEbeRWgbNEkqO%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0,s=W22ZaJ0SNY7soEsUEjb6gQ==,i=4096',
    );
    expect(finishExchange(exchange, clientFinal, verifier)).toBe('v=6rriTRBi23WpRR/wtup+mMhUZUn/dB5nLTJRsjl95G4=');
  });

  it('the proof of another password is undefined (a 28P01 for the caller), as is any fake verifier', () => {
    const other = makeScramVerifier('pencil2', { salt: Buffer.from('W22ZaJ0SNY7soEsUEjb6gQ==', 'base64') });
    const exchange = beginExchange(clientFirst, other, '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0');
    expect(finishExchange(exchange, clientFinal, other)).toBeUndefined();
    const fake = mockVerifier('user', Buffer.alloc(32, 7));
    expect(
      finishExchange(beginExchange(clientFirst, fake, '%hvYDpWUa2RaTCAfuxFIlj)hNlF$k0'), clientFinal, fake),
    ).toBeUndefined();
  });
});

describe('verifiers as PostgreSQL 15 stores them', () => {
  it.each([
    [
      'pencil',
      'SCRAM-SHA-256$4096:esCMk+Dc1/FIj8Fupr34OA==$x4lb5FwGXLvYFkNbaXE4oNuJ/GmP1kVv/UtF0aBtXnU=:GoUZ5eONA4+ZnUzplQ+59tR9E1LeWUBxAMDLdP1Dae4=',
    ],
    // Non-ASCII: SASLprep maps U+00A0 to a space, drops U+00AD and folds U+2168 (Roman numeral nine) to "IX".
    [
      'p\u00e4ss\u00a0w\u2168rd\u00ad',
      'SCRAM-SHA-256$4096:U5aLV29wk4Q/zBuO5nUzcg==$i7LkrKSjsoaexOqkwWftKxIg0riP5HIMjCDdRjstayQ=:foRo/+amVPpjUSC/QTTTtsNuVmjs0F3/pEl8QaVhkrE=',
    ],
  ])('%j', (password, stored) => {
    const [, iterations, salt, storedKey, serverKey] = /^SCRAM-SHA-256\$(\d+):([^$]+)\$([^:]+):(.+)$/.exec(stored)!;
    expect(makeScramVerifier(password, { salt: Buffer.from(salt!, 'base64'), iterations: Number(iterations) })).toEqual(
      {
        salt,
        iterations: Number(iterations),
        storedKey,
        serverKey,
      },
    );
  });
});

describe('an unknown user', () => {
  it('gets the same salt for the same name from the same server, another for another name or server', () => {
    const secret = Buffer.alloc(32, 1);
    expect(mockVerifier('mallory', secret).salt).toBe(mockVerifier('mallory', secret).salt);
    expect(mockVerifier('mallory', secret).salt).not.toBe(mockVerifier('eve', secret).salt);
    expect(mockVerifier('mallory', secret).salt).not.toBe(mockVerifier('mallory', Buffer.alloc(32, 2)).salt);
    expect(mockVerifier('mallory', secret)).toMatchObject({
      iterations: 4096,
      salt: expect.stringMatching(/^.{22}==$/),
    });
  });
});

describe('malformed exchanges', () => {
  const verifier = makeScramVerifier('pencil');
  const codeOf = (run: () => unknown) => {
    try {
      run();
    } catch (error) {
      expect(error).toBeInstanceOf(SqlError);
      return `${(error as SqlError).code} ${(error as SqlError).details.severity}`;
    }
    return 'accepted';
  };

  it.each([
    ['n,,n=,r=abc', 'accepted'],
    ['y,,n=,r=abc', 'accepted'],
    ['p=tls-server-end-point,,n=,r=abc', '08P01 FATAL'],
    ['x,,n=,r=abc', '08P01 FATAL'],
    ['n,a=admin,n=,r=abc', '0A000 FATAL'],
    ['n,,m=ext,n=,r=abc', '0A000 FATAL'],
    ['n,,r=abc', '08P01 FATAL'],
    ['n,,n=,r=a,c', 'accepted'],
    ['n,,n=,r=', '08P01 FATAL'],
    ['garbage', '08P01 FATAL'],
  ])('client-first %j: %s', (clientFirst, outcome) => {
    expect(codeOf(() => beginExchange(clientFirst, verifier))).toBe(outcome);
  });

  it('client-final must repeat the GS2 header and the whole nonce, and carry a 32-byte proof', () => {
    const exchange = beginExchange('n,,n=,r=abc', verifier, 'XYZ');
    const proof = Buffer.alloc(32).toString('base64');
    expect(codeOf(() => finishExchange(exchange, `c=biws,r=abcXYZ,p=${proof}`, verifier))).toBe('accepted');
    expect(codeOf(() => finishExchange(exchange, `c=eSws,r=abcXYZ,p=${proof}`, verifier))).toBe('08P01 FATAL');
    expect(codeOf(() => finishExchange(exchange, `c=biws,r=abc,p=${proof}`, verifier))).toBe('08P01 FATAL');
    expect(codeOf(() => finishExchange(exchange, 'c=biws,r=abcXYZ,p=AAAA', verifier))).toBe('08P01 FATAL');
    expect(codeOf(() => finishExchange(exchange, 'c=biws,r=abcXYZ', verifier))).toBe('08P01 FATAL');
  });
});
