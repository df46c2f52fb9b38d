import { allocationOwner } from './allocation-owner';

describe('allocationOwner', () => {
  it('reads the recorded owner', () => {
    expect(allocationOwner({ owner: 'external', podUid: 'u-1' })).toBe('external');
    expect(allocationOwner({ owner: 'pod', podUid: null })).toBe('pod');
  });

  it('gives an allocation recorded before owners were a pod only when it named a podUid: nothing else is proof of a pod', () => {
    expect(allocationOwner({ podUid: 'u-1' })).toBe('pod');
    expect(allocationOwner({ podUid: null })).toBe('external');
  });
});
