import { deciderSpecification } from '../../../../test/support/decider-specification';
import { deepFreeze } from '../../../../test/support/deep-freeze';
import type { IpSetReserved, IpSetWorkloadDeleted, RangeReserved } from '../events';
import type { IpSetRef } from './ip-set';
import { assertIpSetReservable, decideIpSetWorkloadDeleted, IpSetAggregate, ipSetReserved } from './ip-set.aggregate';

const { given, evolved } = deciderSpecification(IpSetAggregate);
const web: IpSetRef = { namespace: 'ns', kind: 'Deployment', name: 'web' };
const range: RangeReserved = {
  type: 'RangeReserved',
  data: { pool: 'p', namespace: 'ns', name: 'Deployment:web', start: '10.0.0.1', end: '10.0.0.3' },
};
const reserved: IpSetReserved = ipSetReserved(web, range);
const deleted = (uid: string): IpSetWorkloadDeleted => ({
  type: 'IpSetWorkloadDeleted',
  data: { namespace: 'ns', kind: 'Deployment', name: 'web', uid },
});

describe("a workload's ip-set stream", () => {
  it('records the range its first pod reserved, and forgets it at the deletion, keeping the deleted uid', () => {
    expect(reserved.data).toEqual({ namespace: 'ns', kind: 'Deployment', name: 'web', pool: 'p', start: '10.0.0.1', end: '10.0.0.3' });
    const state = deepFreeze(evolved(IpSetAggregate.initialState(), reserved));
    expect(state).toEqual({ set: { pool: 'p', start: '10.0.0.1', end: '10.0.0.3' }, deletedUid: null });
    expect(IpSetAggregate.evolve(state, { ...deleted('u1'), version: 2 })).toEqual({ set: null, deletedUid: 'u1' });
    expect(() => IpSetAggregate.evolve(state, { type: 'PoolRenamed', data: {}, version: 2 })).toThrow(/PoolRenamed/);
  });

  it("refuses a reservation once the workload's deletion is recorded, unless a live workload of another uid is known", () => {
    given()
      .when((state) => assertIpSetReservable(state, web, null))
      .then(undefined);
    expect(() => assertIpSetReservable(evolved(IpSetAggregate.initialState(), deleted('u1')), web, null)).toThrow(
      expect.objectContaining({
        code: 'IP_SET_WORKLOAD_DELETED',
        message: expect.stringContaining('Deployment ns/web (uid u1) is deleted'),
      }),
    );
    // the deleted one still recorded live (its DELETED not claimed yet): refused too
    given(deleted('u1'))
      .when((state) => assertIpSetReservable(state, web, 'u1'))
      .thenThrows({ code: 'IP_SET_WORKLOAD_DELETED' });
    // a new workload of the name
    given(deleted('u1'))
      .when((state) => assertIpSetReservable(state, web, 'u2'))
      .then(undefined);
    // reserved again after the tombstone: the stream is live again
    given(deleted('u1'), reserved)
      .when((state) => assertIpSetReservable(state, web, null))
      .then(undefined);
  });

  it('records a deletion once: a redelivered one appends nothing, one after a new reservation appends again', () => {
    given()
      .when((state) => decideIpSetWorkloadDeleted(state, web, 'u1'))
      .then(deleted('u1'));
    given(reserved, deleted('u1'))
      .when((state) => decideIpSetWorkloadDeleted(state, web, 'u1'))
      .then(null);
    given(reserved, deleted('u1'), reserved)
      .when((state) => decideIpSetWorkloadDeleted(state, web, 'u1'))
      .then(deleted('u1'));
    given(deleted('u1'))
      .when((state) => decideIpSetWorkloadDeleted(state, web, 'u2'))
      .then(deleted('u2'));
  });
});
