import { parseLsn } from './lsn';
import { CallerPosition, StandbyView, chooseReadTarget, needsCallerPosition } from './read-routing.policy';

const up = (name: string, replay = '0/100'): StandbyView => ({ name, usable: true, replayLsn: parseLsn(replay) });
const down = (name: string): StandbyView => ({ name, usable: false });
const none: CallerPosition = { kind: 'none' };
const at = (lsn: string): CallerPosition => ({ kind: 'at', lsn: parseLsn(lsn) });

describe('read routing', () => {
  it('keeps work without a context (workers, the CLI) and work that writes on the primary', () => {
    expect(chooseReadTarget(undefined, [up('a')], none, 0)).toEqual({ target: 'primary', reason: 'no-context' });
    expect(chooseReadTarget({ writes: true }, [up('a')], none, 0)).toEqual({ target: 'primary', reason: 'writes' });
    expect(chooseReadTarget({ writes: true, caller: 'user:1' }, [up('a')], none, 0)).toMatchObject({
      target: 'primary',
    });
  });

  it('sends anonymous reads to a usable standby, in turn', () => {
    const standbys = [up('a'), down('b'), up('c')];
    expect(chooseReadTarget({ writes: false }, standbys, none, 0)).toEqual({ target: 'standby', standby: 'a' });
    expect(chooseReadTarget({ writes: false }, standbys, none, 1)).toEqual({ target: 'standby', standby: 'c' });
  });

  it('falls back to the primary when no standby is usable, and says whether one was configured', () => {
    expect(chooseReadTarget({ writes: false }, [], none, 0)).toEqual({ target: 'primary', reason: 'no-standby' });
    expect(chooseReadTarget({ writes: false }, [down('a')], none, 0)).toEqual({
      target: 'primary',
      reason: 'standby-unavailable',
    });
  });

  it("sends a caller's reads to a standby only once it has replayed their last write", () => {
    const standbys = [up('behind', '0/100'), up('ahead', '0/300')];
    const caller = { writes: false, caller: 'user:7' };
    expect(chooseReadTarget(caller, standbys, none, 0)).toEqual({ target: 'standby', standby: 'behind' });
    expect(chooseReadTarget(caller, standbys, at('0/200'), 0)).toEqual({ target: 'standby', standby: 'ahead' });
    expect(chooseReadTarget(caller, standbys, at('0/300'), 0)).toEqual({ target: 'standby', standby: 'ahead' });
    expect(chooseReadTarget(caller, standbys, at('0/301'), 0)).toEqual({
      target: 'primary',
      reason: 'read-your-writes',
    });
  });

  it('reads on the primary when the last write position cannot be known (Redis down)', () => {
    const caller = { writes: false, caller: 'user:7' };
    expect(chooseReadTarget(caller, [up('a', 'FF/0')], { kind: 'unknown' }, 0)).toEqual({
      target: 'primary',
      reason: 'read-your-writes',
    });
  });

  it('asks for the caller position only when it can change the answer', () => {
    expect(needsCallerPosition({ writes: false, caller: 'user:1' }, [up('a')])).toBe(true);
    expect(needsCallerPosition({ writes: false }, [up('a')])).toBe(false);
    expect(needsCallerPosition({ writes: true, caller: 'user:1' }, [up('a')])).toBe(false);
    expect(needsCallerPosition({ writes: false, caller: 'user:1' }, [down('a')])).toBe(false);
    expect(needsCallerPosition(undefined, [up('a')])).toBe(false);
  });
});
