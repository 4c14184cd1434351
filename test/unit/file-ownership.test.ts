import { describe, expect, it } from 'vitest';
import { ownershipProblem, type FoundEntry } from '../../src/store/secret-files.js';

/**
 * Issue 36 item 8, the rule itself over a stat result and the process's uid: what a key file,
 * a TLS pair or their directory must be. Another uid's file cannot be made without root, so
 * this is where "owned by another user" is shown for every uid; the service test shows it for
 * real when it runs as root.
 */
const ME = 1000;
const file = (mode: number, uid = ME): FoundEntry => ({ kind: 'file', uid, mode: 0o100000 | mode });
const directory = (mode: number, uid = ME): FoundEntry => ({ kind: 'directory', uid, mode: 0o040000 | mode });

describe('ownershipProblem', () => {
  it("accepts the service's own 0600 file and 0700 directory (and 0400/0500)", () => {
    for (const mode of [0o600, 0o400, 0o700])
      expect(ownershipProblem(file(mode), { kind: 'file', uid: ME })).toBeUndefined();
    for (const mode of [0o700, 0o500])
      expect(ownershipProblem(directory(mode), { kind: 'directory', uid: ME })).toBeUndefined();
  });

  it('refuses a file of another uid, whatever its mode, and names both uids', () => {
    for (const uid of [0, 1, 65534, ME + 1])
      for (const mode of [0o600, 0o400])
        expect(ownershipProblem(file(mode, uid), { kind: 'file', uid: ME }), `uid ${uid}`).toBe(
          `it is owned by uid ${uid}, not by this service's user (uid ${ME}): another user may have made it`,
        );
    // The service running as root is no exception: a file another uid made is not root's.
    expect(ownershipProblem(file(0o600, 65534), { kind: 'file', uid: 0 })).toMatch(/owned by uid 65534.*\(uid 0\)/);
  });

  it('refuses every group or other permission bit on a secret, naming the mode', () => {
    for (let bit = 0; bit < 6; bit++) {
      const mode = 0o600 | (1 << bit);
      expect(ownershipProblem(file(mode), { kind: 'file', uid: ME }), mode.toString(8)).toMatch(
        new RegExp(`^its mode 0${mode.toString(8)} lets group or others (read|write) it$`),
      );
    }
    expect(ownershipProblem(file(0o644), { kind: 'file', uid: ME })).toBe('its mode 0644 lets group or others read it');
    expect(ownershipProblem(file(0o666), { kind: 'file', uid: ME })).toBe(
      'its mode 0666 lets group or others write it',
    );
    expect(ownershipProblem(directory(0o755), { kind: 'directory', uid: ME })).toMatch(/mode 0755/);
  });

  it('lets a certificate be read by others but never written', () => {
    const cert = { kind: 'file', uid: ME, othersMayRead: true } as const;
    expect(ownershipProblem(file(0o644), cert)).toBeUndefined();
    expect(ownershipProblem(file(0o664), cert)).toMatch(/0664 lets group or others write/);
    expect(ownershipProblem(file(0o646), cert)).toMatch(/write/);
    expect(ownershipProblem(file(0o644, 65534), cert)).toMatch(/owned by uid 65534/);
  });

  it('refuses a symbolic link (another user may plant one at the name) and the wrong kind', () => {
    expect(ownershipProblem({ kind: 'symlink', uid: ME, mode: 0o120777 }, { kind: 'file', uid: ME })).toMatch(
      /symbolic link/,
    );
    expect(ownershipProblem({ kind: 'symlink', uid: ME, mode: 0o120777 }, { kind: 'directory', uid: ME })).toMatch(
      /symbolic link/,
    );
    expect(ownershipProblem(directory(0o700), { kind: 'file', uid: ME })).toBe('it is not a regular file');
    expect(ownershipProblem(file(0o600), { kind: 'directory', uid: ME })).toBe('it is not a directory');
    expect(ownershipProblem({ kind: 'other', uid: ME, mode: 0o010600 }, { kind: 'file', uid: ME })).toBe(
      'it is not a regular file',
    );
  });
});
